// A real OpenID provider for k-mood's single sign-on tests (tests/oidc_provider.py starts it):
// panva's oidc-provider with one confidential client, accounts from a JSON file, an RSA
// signing key made at start (its kid names the run, so a restart is a key rotation), and a
// test-only way to make the provider misbehave once, to prove k-mood refuses what it must.
//
//   node provider.mjs <port> <config.json>
//
// config.json: {"client_id", "client_secret", "redirect_uris": [..],
//   "post_logout_redirect_uris": [..], "key_id", "accounts": {login: {claims...}}}
//
// POST /_test/misbehave with a body of one mode makes the next token response carry an ID
// token that is signed with the provider's own key (unless the mode is about the key) but
// wrong in that one way: wrong-aud, wrong-iss, expired, nonce, foreign-key, alg-none.
// Listens on 127.0.0.1 only; prints "listening <issuer>" once ready.
import { readFileSync } from 'node:fs';

import * as jose from 'jose';
import Provider from 'oidc-provider';

const [port, configPath] = process.argv.slice(2);
const setup = JSON.parse(readFileSync(configPath, 'utf8'));
const issuer = `http://127.0.0.1:${port}`;

const { privateKey } = await jose.generateKeyPair('RS256', { extractable: true });
const signing = { ...(await jose.exportJWK(privateKey)), kid: setup.key_id, alg: 'RS256', use: 'sig' };
const foreign = await jose.exportJWK((await jose.generateKeyPair('RS256', { extractable: true })).privateKey);

const provider = new Provider(issuer, {
  clients: [{
    client_id: setup.client_id,
    client_secret: setup.client_secret,
    redirect_uris: setup.redirect_uris,
    post_logout_redirect_uris: setup.post_logout_redirect_uris,
    grant_types: ['authorization_code'],
    response_types: ['code'],
  }],
  jwks: { keys: [signing] },
  claims: {
    openid: ['sub'],
    email: ['email', 'email_verified'],
    profile: ['preferred_username', 'name'],
    groups: ['groups'],
  },
  scopes: ['openid', 'email', 'profile', 'groups'],
  // As Authelia does by default: the ID token carries sub and the protocol's claims; the
  // profile, email and groups come from the userinfo endpoint.
  conformIdTokenClaims: true,
  pkce: { required: () => true },
  features: { devInteractions: { enabled: true }, rpInitiatedLogout: { enabled: true } },
  async findAccount(ctx, id) {
    const claims = setup.accounts[id] ?? { preferred_username: id };
    return { accountId: id, async claims() { return { sub: id, ...claims }; } };
  },
  // First-party: the person is not asked to consent to what k-mood asks for.
  async loadExistingGrant(ctx) {
    const grant = new ctx.oidc.provider.Grant({
      clientId: ctx.oidc.client.clientId, accountId: ctx.oidc.session.accountId,
    });
    grant.addOIDCScope('openid email profile groups');
    grant.addOIDCClaims(['sub', 'email', 'email_verified', 'preferred_username', 'name', 'groups']);
    await grant.save();
    return grant;
  },
});

let misbehave = null;

async function tampered(idToken, mode) {
  const claims = jose.decodeJwt(idToken);
  const now = Math.floor(Date.now() / 1000);
  const changes = {
    'wrong-aud': { aud: 'someone-else' },
    'wrong-iss': { iss: 'http://127.0.0.1:1' },
    expired: { iat: now - 7200, exp: now - 3600 },
    nonce: { nonce: 'not-the-nonce-k-mood-sent' },
  }[mode] ?? {};
  const payload = { ...claims, ...changes };
  if (mode === 'alg-none') {
    return `${jose.base64url.encode(JSON.stringify({ alg: 'none', kid: setup.key_id }))}.${jose.base64url.encode(JSON.stringify(payload))}.`;
  }
  const key = await jose.importJWK(mode === 'foreign-key' ? foreign : signing, 'RS256');
  return new jose.SignJWT(payload).setProtectedHeader({ alg: 'RS256', kid: setup.key_id }).sign(key);
}

provider.use(async (ctx, next) => {
  if (ctx.path === '/favicon.ico') {  // a browser asks; the provider has none
    ctx.status = 204;
    return;
  }
  await next();
  // The development login page imports a web font from Google: nothing in the tests may
  // reach outside this machine, so the page goes without it.
  if (typeof ctx.body === 'string' && ctx.body.includes('fonts.googleapis.com')) {
    ctx.body = ctx.body.replace(/@import url\(https:\/\/fonts\.googleapis\.com[^)]*\);/g, '');
  }
});

provider.use(async (ctx, next) => {
  if (ctx.method === 'POST' && ctx.path === '/_test/misbehave') {
    const chunks = [];
    for await (const chunk of ctx.req) chunks.push(chunk);
    misbehave = Buffer.concat(chunks).toString('utf8').trim();
    ctx.status = 204;
    return;
  }
  await next();
  if (ctx.path === '/token' && misbehave && ctx.status === 200 && ctx.body?.id_token) {
    const mode = misbehave;
    misbehave = null;
    ctx.body = { ...ctx.body, id_token: await tampered(ctx.body.id_token, mode) };
  }
});

provider.listen(Number(port), '127.0.0.1', () => {
  console.log(`listening ${issuer}`);
});
