// The TypeScript SDK v1 client with its own OAuth support (client credentials grant) against a
// protected server: it meets the 401, finds the authorization server through the protected
// resource metadata, gets a token, then lists the tools and calls `greet`. Usage:
//   node ts-oauth-client.mjs <url> <issuer> <client id> <client secret> <scope>
// Prints one JSON object: {tools, greeting}.
const [url, issuer, clientId, clientSecret, scope] = process.argv.slice(2);
const sdk = '@modelcontextprotocol/sdk';
const { Client } = await import(`${sdk}/client/index.js`);
const { StreamableHTTPClientTransport } = await import(`${sdk}/client/streamableHttp.js`);
const { ClientCredentialsProvider } = await import(`${sdk}/client/auth-extensions.js`);
const authProvider = new ClientCredentialsProvider({ clientId, clientSecret, scope, expectedIssuer: issuer });
const transport = new StreamableHTTPClientTransport(new URL(url), { authProvider });
const client = new Client({ name: 'mcp-wire-oauth', version: '1.0.0' });
await client.connect(transport);
const tools = (await client.listTools()).tools.map(t => t.name).sort();
const called = await client.callTool({ name: 'greet', arguments: { name: 'ts' } });
const greeting = (called.content ?? []).map(c => c.text ?? '').join('\n');
console.log(JSON.stringify({ tools, greeting }));
await client.close();
