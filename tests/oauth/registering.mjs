// Starts oidc-provider (from npm), an OpenID Connect and OAuth 2 authorization server that lets
// a client register itself (Dynamic Client Registration, RFC 7591, open to anyone), on 127.0.0.1
// at a free port, and prints its issuer URL on the first line of stdout. It grants the client
// credentials and the authorization code (PKCE S256, with its development sign-in and consent
// pages: any login, any password), and binds each access token, a JWT signed with one RSA key,
// to the one resource it was asked for (RFC 8707) with the scope `mcp`, as a real authorization
// server for MCP servers does. With MCPCHECK_ISSUED_LOG set, it appends the client secret and
// the registration access token of each registration to that file, one per line, so that a test
// can look for them in what mcpcheck printed. It stops on SIGTERM, or when its stdin closes (so
// that it never outlives the test that started it).
import { appendFileSync } from 'node:fs';
import http from 'node:http';
import { generateKeyPairSync } from 'node:crypto';
import Provider from 'oidc-provider';

const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const key = { ...privateKey.export({ format: 'jwk' }), kid: 'registering', use: 'sig', alg: 'RS256' };
const server = http.createServer();
await new Promise((listening) => server.listen(0, '127.0.0.1', listening));
const issuer = `http://127.0.0.1:${server.address().port}`;
const provider = new Provider(issuer, {
  jwks: { keys: [key] },
  scopes: ['mcp'],
  features: {
    registration: { enabled: true },
    clientCredentials: { enabled: true },
    devInteractions: { enabled: true },
    resourceIndicators: {
      enabled: true,
      useGrantedResource: () => true,
      getResourceServerInfo: (ctx, resource) => ({
        scope: 'mcp',
        audience: resource,
        accessTokenFormat: 'jwt',
        jwt: { sign: { alg: 'RS256' } },
      }),
    },
  },
});
const log = process.env.MCPCHECK_ISSUED_LOG;
if (log) {
  provider.use(async (ctx, next) => {
    await next();
    if (ctx.method === 'POST' && ctx.path === '/reg' && ctx.body && typeof ctx.body === 'object') {
      for (const secret of [ctx.body.client_secret, ctx.body.registration_access_token]) {
        if (secret) {
          appendFileSync(log, `${secret}\n`);
        }
      }
    }
  });
}
server.on('request', provider.callback());
console.log(issuer);
const stop = () => {
  server.close();
  process.exit(0);
};
process.on('SIGTERM', stop);
process.stdin.on('end', stop);
process.stdin.resume();
