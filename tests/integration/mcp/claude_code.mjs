// Claude Code as a real client: register the server with `claude mcp add` (stdio and HTTP) in
// a throwaway HOME, then `claude mcp list` must report both connected. That command exits 0
// even when a server fails, so its output is what is checked.
//   node claude_code.mjs <skillrt> <plugins-dir> <node-dir>
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { check, fail, startHttpServer } from './lib.mjs';

const [server, plugins, nodeDir] = process.argv.slice(2);
const claude = path.join(nodeDir, 'node_modules', '.bin', 'claude');
if (!fs.existsSync(claude)) fail(`claude is not installed under ${nodeDir}`);
const home = fs.mkdtempSync(path.join(os.tmpdir(), 'skillrt-claude-'));
const env = { ...process.env, HOME: home, XDG_CONFIG_HOME: path.join(home, '.config'),
  DISABLE_AUTOUPDATER: '1', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1' };

function run(args) {
  return new Promise((resolve) => {
    const p = spawn(claude, args, { env });
    let output = '';
    p.stdout.on('data', (d) => { output += d; });
    p.stderr.on('data', (d) => { output += d; });
    p.on('close', (status) => {
      process.stdout.write(output);
      resolve({ status, output });
    });
  });
}

const serverArgs = ['--no-default-plugins', '--plugin-path', plugins, 'serve'];
const http = await startHttpServer(server, serverArgs);
try {
  const add = await run(['mcp', 'add', '--scope', 'user', 'skillrt', '--', server,
    ...serverArgs]);
  check(add.status === 0, 'claude mcp add (stdio) succeeded');
  const addHttp = await run(['mcp', 'add', '--scope', 'user', '--transport', 'http',
    'skillrt-http', http.url]);
  check(addHttp.status === 0, 'claude mcp add --transport http succeeded');
  const list = await run(['mcp', 'list']);
  const line = (name) => list.output.split('\n').find((l) => l.startsWith(`${name}:`)) ?? '';
  check(/Connected/.test(line('skillrt')) && !/Failed/.test(line('skillrt')),
    `claude mcp list: skillrt over stdio is connected (${line('skillrt').trim()})`);
  check(/Connected/.test(line('skillrt-http')) && !/Failed/.test(line('skillrt-http')),
    `claude mcp list: skillrt over HTTP is connected (${line('skillrt-http').trim()})`);
} finally {
  http.child.kill('SIGTERM');
  fs.rmSync(home, { recursive: true, force: true });
}
console.log('PASS: Claude Code connects');
process.exit(0);
