// Shared by the MCP interop scripts: loading npm packages from the build tree, starting the
// server, and failing loudly.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

export function fail(message) {
  console.error(`FAIL: ${message}`);
  process.exit(1);
}

export function check(condition, message) {
  if (!condition) fail(message);
  console.log(`ok - ${message}`);
}

// Imports `specifier` (e.g. '@modelcontextprotocol/sdk/client/index.js') from nodeDir's
// node_modules; ESM ignores NODE_PATH, so resolution goes through a require rooted there.
export async function importFrom(nodeDir, specifier) {
  const require = createRequire(path.join(nodeDir, 'package.json'));
  return import(pathToFileURL(require.resolve(specifier)).href);
}

// Starts the server with --http on a free loopback port (args end with `serve`); resolves to
// {child, url} once it says where it listens.
export function startHttpServer(command, args) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, [...args, '--http', '127.0.0.1:0'], {
      stdio: ['ignore', 'inherit', 'pipe'],
    });
    let seen = '';
    child.stderr.on('data', (chunk) => {
      process.stderr.write(chunk);
      seen += chunk.toString();
      const match = seen.match(/listening on (http:\/\/[^\s]+)/);
      if (match) resolve({ child, url: match[1] });
    });
    child.on('exit', (code) => reject(new Error(`server exited with ${code} before listening`)));
  });
}
