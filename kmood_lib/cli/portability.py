"""`kmood.py import-daylio`, `import-json`, `export` and `backup`: a journal in and out from the
command line, with progress on stderr."""

from __future__ import annotations

import io
import sys
import time
import zipfile
from pathlib import Path
from zoneinfo import ZoneInfo

from kmood_lib.accounts import users
from kmood_lib.bootstrap import bootstrap
from kmood_lib.cli.runner import EXIT_OK, EXIT_USAGE, UsageError
from kmood_lib.core.config import Config
from kmood_lib.core.db import transaction
from kmood_lib.portability import backup, export, importer, kmood_json
from kmood_lib.portability.daylio.moods import parse_mood_map
from kmood_lib.portability.daylio.plan import DaylioFormatError


class Progress:
    """Rows done / total and the rate on stderr: one redrawn line on a terminal, plain lines
    otherwise."""

    def __init__(self, stream=sys.stderr):
        self.stream, self.started = stream, time.monotonic()
        self.tty = stream.isatty()

    def __call__(self, done: int, total: int) -> None:
        rate = done / max(time.monotonic() - self.started, 1e-6)
        line = f"{done}/{total} rows ({done * 100 // max(total, 1)}%), {rate:,.0f} rows/s"
        if self.tty:
            width = 30
            filled = width * done // max(total, 1)
            self.stream.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {line}")
            if done == total:
                self.stream.write("\n")
        else:
            self.stream.write(line + "\n")
        self.stream.flush()


def named_user(conn, args) -> users.User:
    """The account `--user` names, or a usage error saying there is none."""
    person = users.find_user(conn, args.user)
    if person is None:
        raise UsageError(f"{args.command}: no user {args.user!r}")
    return person


def mood_map_of(args) -> dict[str, int]:
    texts = []
    if args.mood_map_file:
        try:
            texts.append(Path(args.mood_map_file).read_bytes().decode("utf-8-sig"))
        except (OSError, UnicodeDecodeError) as exc:
            raise UsageError(f"import-daylio: cannot read the mood map file: {exc}") from None
    if args.mood_map:
        texts.append(args.mood_map)
    out: dict[str, int] = {}
    for text in texts:
        try:
            out.update(parse_mood_map(text))
        except ValueError as exc:
            raise UsageError(f"import-daylio: {exc}") from None
    return out


def cmd_import_daylio(args, config: Config) -> int:
    mood_map = mood_map_of(args) if hasattr(args, "mood_map") else {}
    try:
        data = Path(args.file).read_bytes()
    except OSError as exc:
        raise UsageError(f"{args.command}: cannot read {args.file}: {exc.strerror}") from None
    services = bootstrap(config)
    conn = services.connect()
    try:
        person = named_user(conn, args)
        try:
            report = importer.import_file(conn, person.id, ZoneInfo(person.timezone), data,
                                          mood_map, services.clock,
                                          dry_run=args.dry_run, progress=Progress(),
                                          **importer.settings_of(services))
        except DaylioFormatError as exc:
            raise UsageError(f"{args.command}: {args.file}: {exc}") from None
        except importer.ImportRefused as exc:
            print_report(exc.report, sys.stderr)
            return EXIT_USAGE
    finally:
        conn.close()
    print_report(report, sys.stdout)
    return EXIT_OK


def print_report(report: dict, stream) -> None:
    print(report["message"], file=stream)
    if report["rows"]:
        print(f"{report['rows']} rows from {report['first_day']} to {report['last_day']}"
              f" ({report['format']})", file=stream)
    for mood in report["moods"]:
        print(f"  mood {mood['name']!r} -> level {mood['level']}: {mood['rows']} rows",
              file=stream)
    for mood in report["unknown_moods"]:
        print(f"  mood {mood['name']!r} has no level: {mood['rows']} rows, first"
              f" {', '.join(mood['first'])}", file=stream)
    for line in report.get("restored") or []:
        print(f"  restored: {line}", file=stream)
    for kind in ("problems", "warnings", "ignored"):
        for line in report[kind]:
            print(f"  {kind[:-1] if kind != 'ignored' else 'ignored'}: {line}", file=stream)
    if report.get("more_problems"):
        print(f"  ... and {report['more_problems']} more problems", file=stream)


def cmd_import_json(args, config: Config) -> int:
    try:
        data = Path(args.file).read_bytes()
    except OSError as exc:
        raise UsageError(f"import-json: cannot read {args.file}: {exc.strerror}") from None
    if not (kmood_json.is_export(data) or _is_export_zip(data)):
        raise UsageError(f"import-json: {args.file} is not a k-mood JSON or ZIP export")
    return cmd_import_daylio(args, config)


def _is_export_zip(data: bytes) -> bool:
    try:
        return kmood_json.is_export_zip(zipfile.ZipFile(io.BytesIO(data)))
    except (zipfile.BadZipFile, ValueError):
        return False


def _export_zip(services, conn, person, target: Path) -> int:
    """The ZIP written beside its final name and moved there once complete."""
    partial = target.with_name(target.name + ".partial")
    try:
        with partial.open("wb") as out, transaction(conn, immediate=False):
            export.export_zip(conn, person.id, services.clock.now_ms(), out)
        partial.replace(target)
    except OSError as exc:
        partial.unlink(missing_ok=True)
        raise UsageError(f"export: cannot write {target}: {exc.strerror}") from None
    print(f"wrote zip export of {person.username} to {target}", file=sys.stderr)
    return EXIT_OK


def cmd_export(args, config: Config) -> int:
    if args.format == "zip" and not args.output:
        raise UsageError("export: a ZIP needs --output (a file, not the terminal)")
    services = bootstrap(config)
    conn = services.connect()
    try:
        person = named_user(conn, args)
        if args.format == "zip":
            return _export_zip(services, conn, person, Path(args.output))
        with transaction(conn, immediate=False):  # one consistent snapshot
            body = (export.export_json(conn, person.id, services.clock.now_ms())
                    if args.format == "json" else export.export_csv(conn, person.id))
    finally:
        conn.close()
    if args.output:
        target = Path(args.output)
        partial = target.with_name(target.name + ".partial")
        try:
            partial.write_text(body, encoding="utf-8")
            partial.replace(target)  # never a half-written export under the real name
        except OSError as exc:
            raise UsageError(f"export: cannot write {args.output}: {exc.strerror}") from None
        print(f"wrote {args.format} export of {person.username} to {target}", file=sys.stderr)
    else:
        sys.stdout.write(body)
    return EXIT_OK


def cmd_backup(args, config: Config) -> int:
    dest = Path(args.dest)
    if dest.is_dir():
        dest = dest / backup.backup_name(int(time.time() * 1000))
    try:
        made = backup.take_backup(config.db_path, dest, config.busy_timeout_ms)
    except backup.BackupError as exc:
        raise UsageError(f"backup: {exc}") from None
    print(f"backup written to {made['path']} ({made['bytes']} bytes); integrity check ok")
    return EXIT_OK
