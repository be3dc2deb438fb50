// A real authorization server for the OAuth end-to-end test (examples/tests/mcp_oauth.rs):
// npm `oidc-provider` (installed by scripts/install-mcp-peers.sh), configured for one MCP
// resource. Usage: node oidc_provider.mjs RESOURCE_URL ACCESS_TOKEN_TTL_SECONDS
//
// - Dynamic client registration is open (the MCP client registers itself, a public native
//   client with PKCE).
// - Resource indicators (RFC 8707): access tokens for RESOURCE_URL are RS256 JWTs with
//   `aud` = RESOURCE_URL and scopes out of `mcp:tools shell:run`, living
//   ACCESS_TOKEN_TTL_SECONDS. RESOURCE_URL + `-other` is a second resource (a token for it is
//   not for RESOURCE_URL).
// - Refresh tokens are issued to every client allowed the `refresh_token` grant; revocation
//   (RFC 7009) is on.
// - Two clients are pre-registered for the client-credentials grant of a headless host:
//   `headless`, secret `headless-secret`, and `short-lived` (secret `short-lived-secret`),
//   whose access tokens live 2 seconds; both `client_secret_post`.
// - Interactions complete themselves: the user `test-user` is logged in and every requested
//   scope granted, so a test follows the authorization URL with an HTTP client and no browser.
//
// OIDC_PROVIDER_DIR names the npm prefix oidc-provider is installed under.
// Prints `issuer URL` on its first line of stdout once it listens.
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';

const { default: Provider, errors } = await import(
  pathToFileURL(join(process.env.OIDC_PROVIDER_DIR ?? '.', 'node_modules/oidc-provider/lib/index.js')).href
);

const [resource, ttlText] = process.argv.slice(2);
if (!resource) {
  console.error('usage: node oidc_provider.mjs RESOURCE_URL [ACCESS_TOKEN_TTL_SECONDS]');
  process.exit(2);
}
const accessTokenTTL = Number(ttlText ?? 3600);

const server = (await import('node:http')).createServer();
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const issuer = `http://127.0.0.1:${server.address().port}`;

const provider = new Provider(issuer, {
  scopes: ['openid', 'offline_access', 'mcp:tools', 'shell:run'],
  clients: [
    {
      client_id: 'headless',
      client_secret: 'headless-secret',
      grant_types: ['client_credentials'],
      response_types: [],
      redirect_uris: [],
      token_endpoint_auth_method: 'client_secret_post',
    },
    {
      client_id: 'short-lived',
      client_secret: 'short-lived-secret',
      grant_types: ['client_credentials'],
      response_types: [],
      redirect_uris: [],
      token_endpoint_auth_method: 'client_secret_post',
    },
  ],
  findAccount: async (_ctx, id) => ({ accountId: id, claims: async () => ({ sub: id }) }),
  features: {
    devInteractions: { enabled: false },
    registration: { enabled: true },
    clientCredentials: { enabled: true },
    revocation: { enabled: true },
    resourceIndicators: {
      enabled: true,
      // No default: a token is for the resource only when the client names it (RFC 8707).
      defaultResource: async () => undefined,
      useGrantedResource: async () => true,
      getResourceServerInfo: async (_ctx, indicator, client) => {
        if (indicator !== resource && indicator !== `${resource}-other`) {
          throw new errors.InvalidTarget(`unknown resource ${indicator}`);
        }
        return {
          scope: 'mcp:tools shell:run',
          audience: indicator,
          accessTokenTTL: client.clientId === 'short-lived' ? 2 : accessTokenTTL,
          accessTokenFormat: 'jwt',
          jwt: { sign: { alg: 'RS256' } },
        };
      },
    },
  },
  issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
  ttl: { RefreshToken: 3600, Grant: 3600, Session: 3600, Interaction: 600 },
});
provider.proxy = false;

// The interaction shortcut: log `test-user` in, then grant what the client asked for.
provider.use(async (ctx, next) => {
  const match = ctx.path.match(/^\/interaction\/([^/]+)$/);
  if (!match || ctx.method !== 'GET') {
    return next();
  }
  const details = await provider.interactionDetails(ctx.req, ctx.res);
  const { prompt, params, session } = details;
  if (prompt.name === 'login') {
    await provider.interactionFinished(ctx.req, ctx.res, { login: { accountId: 'test-user' } }, {
      mergeWithLastSubmission: false,
    });
    return undefined;
  }
  const grant = details.grantId
    ? await provider.Grant.find(details.grantId)
    : new provider.Grant({ accountId: session.accountId, clientId: params.client_id });
  if (prompt.details.missingOIDCScope) {
    grant.addOIDCScope(prompt.details.missingOIDCScope.join(' '));
  }
  for (const [indicator, scopes] of Object.entries(prompt.details.missingResourceScopes ?? {})) {
    grant.addResourceScope(indicator, scopes.join(' '));
  }
  const grantId = await grant.save();
  await provider.interactionFinished(ctx.req, ctx.res, { consent: { grantId } }, {
    mergeWithLastSubmission: true,
  });
  return undefined;
});

server.on('request', provider.callback());
process.stdout.write(`issuer ${issuer}\n`);
