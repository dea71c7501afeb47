// The official TypeScript SDK client against the server, over stdio or Streamable HTTP:
// initialize, paged tools/list, calls with structured output, errors, progress, cancellation.
//   node sdk_client.mjs stdio|http <skillrt> <plugins-dir> <skills-dir> <node-dir>
// The server is `skillrt serve` with only the test plugins (no installed ones).
import { check, fail, importFrom, startHttpServer } from './lib.mjs';

const [mode, server, plugins, skills, nodeDir] = process.argv.slice(2);
const sdk = (p) => importFrom(nodeDir, `@modelcontextprotocol/sdk/${p}`);
const { Client } = await sdk('client/index.js');
const serverArgs = ['--no-default-plugins', '--plugin-path', plugins, '--skills-dir', skills,
  'serve'];

let transport;
let child;
if (mode === 'stdio') {
  const { StdioClientTransport } = await sdk('client/stdio.js');
  transport = new StdioClientTransport({ command: server, args: serverArgs, stderr: 'inherit' });
} else if (mode === 'http') {
  const { StreamableHTTPClientTransport } = await sdk('client/streamableHttp.js');
  const started = await startHttpServer(server, serverArgs);
  child = started.child;
  transport = new StreamableHTTPClientTransport(new URL(started.url));
} else {
  fail(`unknown mode ${mode}: use stdio or http`);
}

const client = new Client({ name: 'skillrt-interop', version: '1.0.0' });
await client.connect(transport);
check(client.getServerVersion()?.name === 'skillrt', 'initialize: serverInfo.name is skillrt');
check(client.getServerCapabilities()?.tools !== undefined, 'initialize: tools capability');
if (mode === 'http') check(typeof transport.sessionId === 'string', 'http: a session id was issued');

// Paging: the fixtures plugin registers more tools than one page holds.
const names = [];
let cursor;
let pages = 0;
do {
  const page = await client.listTools(cursor ? { cursor } : {});
  names.push(...page.tools.map((t) => t.name));
  cursor = page.nextCursor;
  pages += 1;
} while (cursor && pages < 20);
check(pages >= 2, `tools/list needed ${pages} pages`);
check(new Set(names).size === names.length && names.includes('fixture-echo'),
  `tools/list returned ${names.length} distinct tools including fixture-echo`);
check(names.every((n) => `mcp__skillrt__${n}`.length <= 64), 'tool names fit mcp__skillrt__<name> in 64');

// Structured output; the SDK checks structuredContent against outputSchema itself.
const echo = await client.callTool({ name: 'fixture-echo', arguments: { text: 'héllo' } });
check(echo.isError === false && echo.structuredContent?.text === 'héllo', 'structuredContent');
check(JSON.parse(echo.content[0].text).text === 'héllo', 'the same JSON as text content');
// The same echo written with the SDK's raw_handler: the arguments' text goes through unchanged.
const raw = await client.callTool({ name: 'fixture-echo-raw', arguments: { text: 'a "quoted" é' } });
check(raw.isError === false && raw.structuredContent?.text === 'a "quoted" é' &&
  JSON.parse(raw.content[0].text).text === 'a "quoted" é', 'raw-handler structuredContent and text');

const bad = await client.callTool({ name: 'fixture-echo', arguments: { text: 5 } });
check(bad.isError === true && /text/.test(bad.content[0].text), 'schema violation is isError naming the field');
const failed = await client.callTool({ name: 'fixture-fail', arguments: {} });
check(failed.isError === true && /FAILED_PRECONDITION/.test(failed.content[0].text), 'failing skill is isError');
try {
  await client.callTool({ name: 'no-such-tool', arguments: {} });
  fail('unknown tool did not raise');
} catch (e) {
  check(e.code === -32602, `unknown tool is -32602 (${e.code})`);
}

// Progress. The SDK handles notifications a microtask later than responses, so when the last
// notifications and the response arrive in one read (common over a pipe) it drops those
// notifications as "unknown token" through onerror; both paths count as received.
const progress = [];
const late = [];
client.onerror = (e) => {
  const m = /unknown token: (.*)$/.exec(e.message);
  if (m) late.push(JSON.parse(m[1]).params);
};
const stepped = await client.callTool({ name: 'fixture-progress', arguments: { steps: 5 } },
  undefined, { onprogress: (p) => progress.push(p) });
check(stepped.structuredContent?.steps === 5, 'progress call result');
await new Promise((r) => setImmediate(r));
for (const p of late) progress.push({ progress: p.progress, total: p.total, message: p.message });
client.onerror = undefined;
check(progress.length === 5 && progress.every((p, i) => p.progress === i + 1 && p.total === 5),
  `5 increasing progress notifications (${JSON.stringify(progress)})`);

// Cancellation: the SDK sends notifications/cancelled when the signal aborts.
const controller = new AbortController();
const slow = client.callTool({ name: 'fixture-slow', arguments: { max_ms: 60000 } }, undefined,
  { signal: controller.signal, timeout: 120000,
    onprogress: () => {} });
setImmediate(() => controller.abort('test cancels'));
try {
  await slow;
  fail('cancelled call resolved');
} catch (e) {
  check(controller.signal.aborted, `cancelled call rejected (${e.message})`);
}
// The server goes on: a call after the cancellation is answered, and two calls run at once.
const [a, b] = await Promise.all([
  client.callTool({ name: 'fixture-echo', arguments: { text: 'a' } }),
  client.callTool({ name: 'fixture-echo', arguments: { text: 'b' } }),
]);
check(a.structuredContent.text === 'a' && b.structuredContent.text === 'b', 'server answers after cancel');

const resources = await client.listResources();
check(Array.isArray(resources.resources), `resources/list (${resources.resources.length})`);
await client.ping();
check(true, 'ping');

await client.close();
if (child) child.kill('SIGTERM');
console.log(`PASS: SDK client over ${mode}`);
process.exit(0);
