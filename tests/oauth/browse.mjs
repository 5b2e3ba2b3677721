// A scripted browser for the `--auth code` tests: opens the sign-in URL mcpcheck passes it and
// follows the redirects, as a browser would (oauth2-mock-server signs the user in without asking),
// which ends at mcpcheck's loopback listener. With `--tamper-state` it changes the `state` of the
// redirect back, as a forged request would.
const [url, ...flags] = process.argv.slice(2).reverse();
const tamper = flags.includes('--tamper-state');
const answer = await fetch(url, { redirect: 'manual' });
const back = new URL(answer.headers.get('location'), url);
if (tamper) {
  back.searchParams.set('state', 'forged');
}
await fetch(back);
