"""`make bench`: every benchmark, each printing ratios against a baseline from the same run."""

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
BENCHMARKS = ["api.py", "queue.py", "pages.py", "insights.py", "enrich.py", "import.py",
              "import_latency.py", "import_photos.py", "capacity.py", "insights_burst.py"]

if __name__ == "__main__":
    failed = 0
    for name in BENCHMARKS:
        print(f"== {name}", flush=True)
        failed |= subprocess.call([sys.executable, str(HERE / name)])
    sys.exit(failed)
