// A scripted browser for the `--auth code` tests: opens the sign-in URL mcpcheck passes it and
// goes where the authorization server sends it, as a user would: it follows redirects, keeps the
// server's cookies, and submits each form a page shows (a sign-in with any login and password, a
// consent), until the redirect back to mcpcheck's loopback listener (`/callback`). oauth2-mock-
// server signs the user in without asking; oidc-provider asks twice. With `--tamper-state` it
// changes the `state` of the redirect back, as a forged request would; with `--tamper-iss` its
// `iss` (RFC 9207), and with `--drop-iss` leaves it out, as the answer of another authorization
// server would.
const [url, ...flags] = process.argv.slice(2).reverse();
const tamper = flags.includes('--tamper-state');
const otherIssuer = flags.includes('--tamper-iss');
const noIssuer = flags.includes('--drop-iss');
const cookies = new Map();
let next = { url, method: 'GET', body: undefined };
for (let step = 0; step < 20; step += 1) {
  const target = new URL(next.url);
  if (target.pathname === '/callback') {
    if (tamper) {
      target.searchParams.set('state', 'forged');
    }
    if (otherIssuer) {
      target.searchParams.set('iss', 'https://another-issuer.invalid');
    }
    if (noIssuer) {
      target.searchParams.delete('iss');
    }
    await fetch(target);
    process.exit(0);
  }
  const headers = { cookie: [...cookies].map(([k, v]) => `${k}=${v}`).join('; ') };
  if (next.body) {
    headers['content-type'] = 'application/x-www-form-urlencoded';
  }
  const answer = await fetch(target, { method: next.method, body: next.body, headers, redirect: 'manual' });
  for (const line of answer.headers.getSetCookie()) {
    const [pair] = line.split(';');
    const at = pair.indexOf('=');
    cookies.set(pair.slice(0, at).trim(), pair.slice(at + 1).trim());
  }
  const location = answer.headers.get('location');
  if (location) {
    next = { url: new URL(location, target).href, method: 'GET', body: undefined };
    continue;
  }
  const page = await answer.text();
  const form = page.match(/<form[^>]*action="([^"]*)"[^>]*>([\s\S]*?)<\/form>/);
  if (!form) {
    console.error(`browse: ${target.href} answered ${answer.status} with no redirect and no form`);
    process.exit(1);
  }
  const fields = new URLSearchParams();
  for (const input of form[2].matchAll(/<input([^>]*)>/g)) {
    const name = input[1].match(/name="([^"]*)"/);
    const value = input[1].match(/value="([^"]*)"/);
    if (name) {
      fields.set(name[1], value ? value[1] : 'mcpcheck');
    }
  }
  next = { url: new URL(form[1], target).href, method: 'POST', body: fields.toString() };
}
console.error('browse: no redirect back after 20 steps');
process.exit(1);
