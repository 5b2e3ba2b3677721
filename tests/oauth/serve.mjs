// Starts oauth2-mock-server (from npm) on 127.0.0.1 at a free port with one RSA key, and prints
// its issuer URL on the first line of stdout. A token asked for with an RFC 8707 `resource`
// parameter carries it as its audience (`aud`), as a real authorization server binds a token to
// the resource it is for, and a token for an authorization code carries the scope granted with
// it; the server keeps its own defaults otherwise. It stops on SIGTERM, or
// when its stdin closes (so that it never outlives the test that started it).
import { OAuth2Server } from 'oauth2-mock-server';

const server = new OAuth2Server();
await server.issuer.keys.generate('RS256');
// The scope a user granted at /authorize goes with its code into the token, as a real
// authorization server's does (the mock takes a token's scope from the token request only).
const granted = new Map();
server.service.on('beforeAuthorizeRedirect', (redirect, req) => {
  const asked = new URL(req.url, 'http://localhost').searchParams.get('scope');
  const code = redirect.url.searchParams.get('code');
  if (asked && code) {
    granted.set(code, asked);
  }
});
server.service.on('beforeTokenSigning', (token, req) => {
  const body = req.body || {};
  if (body.resource) {
    token.payload.aud = body.resource;
  }
  if (body.grant_type === 'authorization_code' && granted.has(body.code)) {
    token.payload.scope = granted.get(body.code);
    granted.delete(body.code);
  }
});
await server.start(0, '127.0.0.1');
console.log(server.issuer.url);
const stop = async () => {
  await server.stop();
  process.exit(0);
};
process.on('SIGTERM', stop);
process.stdin.on('end', stop);
process.stdin.resume();
