// Starts oauth2-mock-server (from npm) on 127.0.0.1 at a free port with one RSA key, and prints
// its issuer URL on the first line of stdout. A token asked for with an RFC 8707 `resource`
// parameter carries it as its audience (`aud`), as a real authorization server binds a token to
// the resource it is for; the server keeps its own defaults otherwise. It stops on SIGTERM, or
// when its stdin closes (so that it never outlives the test that started it).
import { OAuth2Server } from 'oauth2-mock-server';

const server = new OAuth2Server();
await server.issuer.keys.generate('RS256');
server.service.on('beforeTokenSigning', (token, req) => {
  const resource = req.body && req.body.resource;
  if (resource) {
    token.payload.aud = resource;
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
