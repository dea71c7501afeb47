// skillrt's page for people (docs/web.md): an MCP client in the browser. Everything goes through
// /mcp as JSON-RPC, the way Claude Code or Codex would call it, with the token this page was
// opened with (?token=...). Nothing is fetched from anywhere else.
'use strict';

const token = new URLSearchParams(location.search).get('token') || '';
const mcp = { session: '', protocol: '2025-11-25', nextId: 1 };
const tools = new Map(); // name -> the tool as tools/list describes it
const form = { fields: [] }; // the run form's fields: { name, read(), write(value) }
let running = null; // JSON-RPC id of the call the run form is waiting for

const $ = (id) => document.getElementById(id);

// Every piece of data reaches the page as a text node or an attribute value, never as markup:
// a quote, a skill's output or an error message shows as the characters it holds.
function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith('on')) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? '' : String(value));
  }
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

function setStatus(text, isError = false) {
  $('status').textContent = text;
  $('status').className = isError ? 'error' : '';
}

// ---- MCP over Streamable HTTP ----

// POSTs one JSON-RPC message; hands every message of the answer (one JSON body, or the events of
// an SSE stream when the server sends progress first) to onMessage as it arrives.
async function post(message, onMessage) {
  const headers = {
    'Content-Type': 'application/json',
    Accept: 'application/json, text/event-stream',
  };
  if (token) headers.Authorization = `Bearer ${token}`;
  if (mcp.session) {
    headers['Mcp-Session-Id'] = mcp.session;
    headers['MCP-Protocol-Version'] = mcp.protocol;
  }
  const response = await fetch('/mcp', { method: 'POST', headers, body: JSON.stringify(message) });
  const session = response.headers.get('Mcp-Session-Id');
  if (session) mcp.session = session;
  const type = response.headers.get('Content-Type') || '';
  if (type.startsWith('text/event-stream')) return readEvents(response.body, onMessage);
  const text = await response.text();
  if (type.startsWith('application/json') && text) return onMessage(JSON.parse(text));
  if (!response.ok) throw new Error(`HTTP ${response.status} ${response.statusText}`);
}

async function readEvents(body, onMessage) {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    buffer += decoder.decode(value, { stream: !done }).replace(/\r\n/g, '\n');
    // An event ends at a blank line; its data: lines hold one JSON-RPC message.
    for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
      const data = buffer.slice(0, end).split('\n')
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).replace(/^ /, ''))
        .join('\n');
      buffer = buffer.slice(end + 2);
      if (data) onMessage(JSON.parse(data));
    }
    if (done) return;
  }
}

async function request(method, params, { onNotification, onId } = {}) {
  const id = mcp.nextId++;
  if (onId) onId(id);
  let answer = null;
  await post({ jsonrpc: '2.0', id, method, params }, (message) => {
    if ('method' in message) {
      if (onNotification) onNotification(message);
    } else if (message.id === id || 'error' in message) {
      answer = message; // an HTTP-level refusal (401, 403, ...) carries an error with id null
    }
  });
  // The server sends no answer to a call the client cancelled.
  if (!answer) throw new Error(`${method} got no answer: it was cancelled`);
  if (answer.error) throw new Error(answer.error.message);
  return answer.result;
}

const notify = (method, params) => post({ jsonrpc: '2.0', method, params }, () => {});

// Each page of a list method, joined.
async function listAll(method, key) {
  const items = [];
  let cursor;
  do {
    const page = await request(method, cursor ? { cursor } : {});
    items.push(...page[key]);
    cursor = page.nextCursor;
  } while (cursor);
  return items;
}

// A skill's result (its structuredContent); a failed call throws with the skill's message.
async function callTool(name, args, { onProgress, onId } = {}) {
  const params = { name, arguments: args };
  const progressToken = `web-${mcp.nextId}`; // the id this call gets: unique in the session
  if (onProgress) params._meta = { progressToken };
  const result = await request('tools/call', params, {
    onId,
    onNotification: (message) => {
      if (message.method === 'notifications/progress' && onProgress &&
          message.params.progressToken === progressToken) {
        onProgress(message.params);
      }
    },
  });
  const text = (result.content || []).filter((c) => c.type === 'text').map((c) => c.text)
    .join('\n');
  if (result.isError) throw new Error(text || `${name} failed`);
  return result.structuredContent !== undefined ? result.structuredContent : JSON.parse(text);
}

// ---- Ask a question: torchnpu-helper answers, find-skill suggests ----

async function ask(event) {
  event.preventDefault();
  const question = $('question').value.trim();
  if (!question) return;
  $('ask-button').disabled = true;
  $('suggestion').replaceChildren();
  $('answer').replaceChildren(el('p', { class: 'note' }, 'Searching the documentation…'));
  const helper = tools.has('torchnpu-helper')
    ? callTool('torchnpu-helper', { question })
    : Promise.reject(new Error('This server has no torchnpu-helper skill: its plugin is not '
      + 'loaded.'));
  const [answer, route] = await Promise.allSettled([
    helper, callTool('find-skill', { text: question, top_k: 3 }),
  ]);
  $('suggestion').replaceChildren(suggestionView(route));
  $('answer').replaceChildren(answerView(answer));
  $('ask-button').disabled = false;
}

function useSkillButton(name) {
  if (!tools.has(name)) return null;
  return el('button', { type: 'button', class: 'secondary use-skill', onclick: () => {
    selectSkill(name);
    $('skill').focus();
  } }, `Use ${name}`);
}

function suggestionView(settled) {
  if (settled.status === 'rejected') return el('p', { class: 'error' }, settled.reason.message);
  const { candidates } = settled.value;
  const box = el('div', { class: 'panel', id: 'suggested' },
    el('h3', {}, 'Suggested skill · 推荐技能'));
  if (!candidates.length) {
    box.append(el('p', {}, 'No skill fits this request well enough (find-skill answered none).'));
    return box;
  }
  const list = el('ol');
  for (const c of candidates) {
    const tool = tools.get(c.skill);
    list.append(el('li', { class: 'candidate' },
      el('strong', {}, c.skill), ` — ${Math.round(c.score * 100)}% `,
      el('span', { class: 'note' }, `matched: ${c.matched.join(', ')}`),
      tool && tool.description ? el('p', { class: 'hint' }, tool.description) : null,
      useSkillButton(c.skill)));
  }
  box.append(list);
  return box;
}

const kStatus = {
  answered: 'Answered from the sources',
  not_found: 'The sources do not say (no guess is made)',
  handover: 'This is a task for another skill',
};

function answerView(settled) {
  if (settled.status === 'rejected') return el('p', { class: 'error' }, settled.reason.message);
  const r = settled.value;
  const box = el('div', { id: 'answer-body' }, el('h3', {}, 'Answer · 回答'),
    el('p', { class: 'note' }, kStatus[r.status] || r.status));
  if (r.answer) {
    box.append(el('blockquote', { class: 'answer-text' }, r.answer.text),
      el('p', { class: 'citation' }, el('code', {}, r.answer.citation)));
  }
  if (r.unknown) {
    box.append(el('p', {}, r.unknown.message), el('ul', {}, r.unknown.next.map((step) =>
      el('li', {}, step.skill ? el('strong', {}, step.skill) : el('code', {}, step.command || ''),
        step.why ? ` — ${step.why}` : '', step.skill ? useSkillButton(step.skill) : null))));
  }
  if (r.passages.length) box.append(el('h3', {}, 'Passages · 出处'));
  for (const p of r.passages) box.append(passageView(p));
  if (r.handover.length) {
    box.append(el('h3', {}, 'Skills for this · 相关技能'), el('ul', {}, r.handover.map((h) =>
      el('li', {}, el('strong', {}, h.skill), h.task ? ' (the task belongs here)' : '',
        ` — ${h.reason} `, useSkillButton(h.skill)))));
  }
  return box;
}

// The file at the cited lines on GitHub, when the citation names an owner/name repository at a
// commit (the bundled docs do: they are copies of Ascend/pytorch and Ascend/op-plugin).
function upstreamUrl(p) {
  if (!/^[\w.-]+\/[\w.-]+$/.test(p.repo) || !/^[0-9a-f]{7,40}$/.test(p.commit || '')) return null;
  const path = p.path.split('/').map(encodeURIComponent).join('/');
  // ?plain=1: GitHub renders Markdown otherwise, and line anchors then point nowhere.
  const plain = /\.(md|markdown|rst)$/i.test(p.path) ? '?plain=1' : '';
  const lines = p.line_end > p.line_start ? `L${p.line_start}-L${p.line_end}` : `L${p.line_start}`;
  return `https://github.com/${p.repo}/blob/${p.commit}/${path}${plain}#${lines}`;
}

function passageView(p) {
  const quoteId = `quote-${p.rank}`;
  // The quote is lines line_start..line_end of the file, one per line of text.
  const lines = p.quote.replace(/\n$/, '').split('\n');
  const figure = el('figure', { id: quoteId, class: 'quote', hidden: true },
    el('figcaption', { class: 'note' }, `${p.path}, lines ${p.line_start}–${p.line_end}`),
    el('pre', {}, lines.map((line, i) => el('span', { class: 'quote-line' },
      el('span', { class: 'number' }, String(p.line_start + i)), line))));
  const toggle = el('button', {
    type: 'button', class: 'secondary open-citation', 'aria-expanded': 'false',
    'aria-controls': quoteId,
    onclick: () => {
      figure.hidden = !figure.hidden;
      toggle.setAttribute('aria-expanded', String(!figure.hidden));
      toggle.textContent = figure.hidden ? 'Show the quoted lines' : 'Hide the quoted lines';
    },
  }, 'Show the quoted lines');
  const url = upstreamUrl(p);
  return el('div', { class: 'passage' },
    el('strong', {}, `${p.rank}. ${p.heading || p.path}`),
    el('p', { class: 'citation' }, el('code', {}, p.citation), (p.matched || []).length
      ? el('span', { class: 'note' }, ` · matched: ${p.matched.join(', ')}`) : null),
    el('div', { class: 'buttons' }, toggle, url
      ? el('a', { href: url, class: 'upstream', target: '_blank', rel: 'noopener noreferrer' },
        `${p.repo}/${p.path} at ${p.commit.slice(0, 12)} on GitHub ↗`)
      : el('span', { class: 'note' }, 'No upstream link: the source is a local checkout.')),
    figure);
}

// ---- Run a skill: a form generated from its input schema ----

function mainType(schema) {
  const types = [].concat(schema.type || []).filter((t) => t !== 'null');
  return types[0] || (schema.enum ? 'string' : undefined);
}

// One form control for one property, or a note that the JSON box must carry it.
function makeField(name, schema, required) {
  const id = `field-${name}`;
  const hintId = `${id}-hint`;
  const type = mainType(schema);
  const items = schema.items || {};
  const mark = required ? 'required' : false;
  const label = el('label', { for: id, class: mark }, schema.title || name);
  const hint = el('p', { class: 'hint', id: hintId }, schema.description || '',
    schema.default !== undefined ? ` (default: ${JSON.stringify(schema.default)})` : '');
  // aria-required, not required: the value may come from the JSON box instead, and the server
  // names every missing field anyway.
  const common = { id, name, 'aria-describedby': hintId, 'aria-required': String(required) };
  const optional = (value) => (value === '' || value === undefined ? undefined : value);
  let control, read, write;
  if (schema.enum && type !== 'array') {
    const unset = schema.default !== undefined ? `(default: ${schema.default})` : '(not set)';
    control = el('select', common, required ? null : el('option', { value: '' }, unset),
      schema.enum.map((v) => el('option', { value: JSON.stringify(v) }, String(v))));
    read = () => (control.value ? JSON.parse(control.value) : undefined);
    write = (v) => { control.value = JSON.stringify(v); };
  } else if (type === 'string') {
    control = el('input', { ...common, type: 'text', placeholder: (schema.examples || [])[0] });
    read = () => optional(control.value);
    write = (v) => { control.value = v; };
  } else if (type === 'integer' || type === 'number') {
    control = el('input', { ...common, type: 'number', min: schema.minimum, max: schema.maximum,
      step: type === 'integer' ? 1 : 'any' });
    read = () => (control.value === '' ? undefined : Number(control.value));
    write = (v) => { control.value = String(v); };
  } else if (type === 'boolean') {
    // Sent only when it differs from the default, so an untouched box leaves the skill's choice.
    control = el('input', { id, name, type: 'checkbox', 'aria-describedby': hintId,
      checked: schema.default === true });
    read = () => (required || control.checked !== (schema.default === true)
      ? control.checked : undefined);
    write = (v) => { control.checked = Boolean(v); };
    const inline = el('label', { for: id, class: 'inline' }, schema.title || name);
    return { name, read, write, node: el('div', {}, control, inline, hint) };
  } else if (type === 'array' && items.enum) {
    const boxes = items.enum.map((v, i) => el('input', {
      type: 'checkbox', id: `${id}-${i}`, value: JSON.stringify(v),
    }));
    read = () => {
      const picked = boxes.filter((b) => b.checked).map((b) => JSON.parse(b.value));
      return picked.length || required ? picked : undefined;
    };
    write = (v) => boxes.forEach((b) => { b.checked = v.includes(JSON.parse(b.value)); });
    const choices = boxes.map((b, i) => [b,
      el('label', { for: b.id, class: 'inline' }, String(items.enum[i]))]);
    const legend = el('legend', { class: mark }, schema.title || name);
    return {
      name, read, write,
      node: el('fieldset', { 'aria-describedby': hintId }, legend, choices, hint),
    };
  } else if (type === 'array' && ['string', 'integer', 'number'].includes(mainType(items))) {
    const numeric = mainType(items) !== 'string';
    control = el('textarea', { ...common, rows: 3, placeholder: 'one per line' });
    read = () => {
      const list = control.value.split('\n').map((s) => s.trim()).filter(Boolean)
        .map((s) => (numeric ? Number(s) : s));
      if (list.some((v) => Number.isNaN(v))) throw new Error(`${name}: one number per line`);
      return list.length || required ? list : undefined;
    };
    write = (v) => { control.value = v.join('\n'); };
  } else {
    const note = el('p', { class: 'hint' }, el('strong', {}, name),
      ` (${type || 'any'}): set it in "Arguments as JSON" below. `, schema.description || '');
    return { name, read: () => undefined, write: null, node: el('div', {}, note) };
  }
  return { name, read, write, node: el('div', {}, label, control, hint) };
}

function selectSkill(name) {
  $('skill').value = name;
  buildForm();
}

function buildForm() {
  const tool = tools.get($('skill').value);
  if (!tool) return;
  const schema = tool.inputSchema || {};
  const required = new Set(schema.required || []);
  $('skill-description').textContent = tool.description || '';
  const fields = $('fields');
  const advanced = el('details', {}, el('summary', {}, 'Advanced'));
  fields.replaceChildren();
  form.fields = [];
  // Required fields first, each group in the schema's order.
  const entries = Object.entries(schema.properties || {});
  entries.sort(([a], [b]) => Number(required.has(b)) - Number(required.has(a)));
  for (const [name, prop] of entries) {
    const isAdvanced = Boolean(prop['x-skillrt-advanced']) && !required.has(name);
    const field = makeField(name, prop, required.has(name));
    form.fields.push(field);
    (isAdvanced ? advanced : fields).append(field.node);
  }
  if (advanced.childElementCount > 1) fields.append(advanced);
  const examples = schema.examples || [];
  if (examples.length) {
    fields.append(el('div', { class: 'buttons' }, examples.map((example, i) => el('button', {
      type: 'button', class: 'secondary', onclick: () => fillExample(example),
    }, `Example ${i + 1}`))));
  }
  $('raw').value = '{}';
}

// Puts an example's values in the form; what the form cannot show goes to the JSON box.
function fillExample(example) {
  const rest = {};
  for (const [name, value] of Object.entries(example)) {
    const field = form.fields.find((f) => f.name === name);
    if (field && field.write) field.write(value);
    else rest[name] = value;
  }
  $('raw').value = JSON.stringify(rest, null, 2);
}

function collectArguments() {
  const args = {};
  for (const field of form.fields) {
    const value = field.read();
    if (Number.isNaN(value)) throw new Error(`${field.name}: not a number`);
    if (value !== undefined) args[field.name] = value;
  }
  const raw = $('raw').value.trim();
  if (!raw) return args;
  let extra;
  try {
    extra = JSON.parse(raw);
  } catch (error) {
    throw new Error(`Arguments as JSON: ${error.message}`);
  }
  if (!extra || typeof extra !== 'object' || Array.isArray(extra)) {
    throw new Error('Arguments as JSON: write a JSON object, e.g. {"name": "Ada"}');
  }
  return Object.assign(args, extra);
}

function showProgress({ progress, total, message }) {
  const bar = $('progress-bar');
  if (total > 0) {
    bar.max = total;
    bar.value = progress;
  }
  const log = $('progress-log');
  const count = total ? `${progress} / ${total}` : String(progress);
  log.append(el('li', {}, count, message ? ` · ${message}` : ''));
  // A long run keeps its latest steps in view; the count stays in the bar.
  while (log.childElementCount > 200) log.firstElementChild.remove();
  log.scrollTop = log.scrollHeight;
}

async function run(event) {
  event.preventDefault();
  const name = $('skill').value;
  const box = $('result');
  let args;
  try {
    args = collectArguments();
  } catch (error) {
    box.replaceChildren(el('p', { class: 'error', role: 'alert' }, error.message));
    return;
  }
  box.replaceChildren(el('p', { class: 'note' }, `Running ${name}…`));
  $('progress-log').replaceChildren();
  $('progress-bar').removeAttribute('value'); // indeterminate until the first report
  $('progress-box').hidden = false;
  $('run-button').disabled = true;
  $('cancel-button').disabled = false;
  const started = performance.now();
  try {
    const result = await callTool(name, args, {
      onProgress: showProgress,
      onId: (id) => { running = id; },
    });
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    const text = JSON.stringify(result, null, 2);
    const saveResult = () => save(new Blob([text], { type: 'application/json' }),
      `${name}-result.json`);
    box.replaceChildren(el('h3', {}, `Result of ${name} · 结果`),
      el('p', { class: 'note', id: 'result-status' }, `Finished in ${seconds} s.`),
      el('div', { class: 'buttons' }, el('button', {
        type: 'button', class: 'secondary', id: 'download-result', onclick: saveResult,
      }, 'Download the result (JSON)')),
      el('pre', { id: 'result-json' }, text),
      await filesView(result));
  } catch (error) {
    box.replaceChildren(el('p', { class: 'error', role: 'alert', id: 'result-error' },
      error.message));
  } finally {
    running = null;
    $('run-button').disabled = false;
    $('cancel-button').disabled = true;
  }
}

async function cancel() {
  if (running === null) return;
  await notify('notifications/cancelled', {
    requestId: running, reason: 'cancelled on the web page',
  });
}

// ---- Files a result names ----

// Every absolute path among the result's strings, with the JSON Pointer of where it was.
function absolutePaths(value, pointer = '', out = []) {
  if (typeof value === 'string') {
    if (value.startsWith('/') && value.length < 4096 && !value.includes('\n')) {
      out.push({ pointer, path: value });
    }
  } else if (value && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) absolutePaths(item, `${pointer}/${key}`, out);
  }
  return out;
}

// The server lets a session read back (resources/read) only the files that its own calls wrote
// and named in their results; every other path stays a path. So a report can be downloaded, while
// an input folder or any other file on the machine cannot.
async function filesView(result) {
  const seen = new Set();
  const paths = absolutePaths(result).filter((p) => !seen.has(p.path) && seen.add(p.path));
  if (!paths.length) return '';
  const readable = new Map((await listAll('resources/list', 'resources')).map((r) => [r.uri, r]));
  const offered = paths.filter((p) => readable.has(`file://${p.path}`));
  // Paths the result names as its outputs, which the server does not offer.
  const refused = paths.filter((p) => !readable.has(`file://${p.path}`) &&
    /report|written|output|files/i.test(p.pointer));
  const box = el('div', { id: 'files' });
  if (offered.length) {
    box.append(el('h3', {}, 'Reports · 报告'), el('ul', {}, offered.map((p) => {
      const name = p.path.slice(p.path.lastIndexOf('/') + 1);
      const button = el('button', {
        type: 'button', class: 'secondary download', 'data-path': p.path,
        onclick: () => download(`file://${p.path}`, name),
      }, `Download ${name}`);
      return el('li', {}, button, ' ', el('code', {}, p.path));
    })));
  }
  if (refused.length) {
    box.append(el('h3', {}, 'Other files the result names'), el('p', { class: 'note' },
      'Not downloadable here: the server lets this page read only files that a call in this '
      + 'session wrote; these existed before the call, are not files, or are gone. Open them on '
      + 'the machine.'),
    el('ul', {}, refused.map((p) => el('li', {}, el('code', {}, p.path)))));
  }
  return box;
}

async function download(uri, name) {
  try {
    const { contents } = await request('resources/read', { uri });
    const c = contents[0];
    const body = c.blob !== undefined
      ? Uint8Array.from(atob(c.blob), (ch) => ch.charCodeAt(0)) : c.text;
    save(new Blob([body], { type: c.mimeType || 'application/octet-stream' }), name);
  } catch (error) {
    $('files').append(el('p', { class: 'error', role: 'alert' }, `${name}: ${error.message}`));
  }
}

function save(blob, name) {
  const url = URL.createObjectURL(blob);
  const link = el('a', { href: url, download: name, hidden: true });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60000);
}

// ---- Start ----

async function start() {
  $('ask-form').addEventListener('submit', ask);
  $('run-form').addEventListener('submit', run);
  $('skill').addEventListener('change', buildForm);
  $('cancel-button').addEventListener('click', cancel);
  // Ends the MCP session with the page; keepalive lets the request outlive it.
  window.addEventListener('pagehide', () => {
    if (!mcp.session) return;
    const headers = { 'Mcp-Session-Id': mcp.session, 'MCP-Protocol-Version': mcp.protocol };
    if (token) headers.Authorization = `Bearer ${token}`;
    fetch('/mcp', { method: 'DELETE', headers, keepalive: true }).catch(() => {});
  });
  // Ctrl+Enter (or Cmd+Enter) asks from the question box.
  $('question').addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) $('ask-form').requestSubmit();
  });
  try {
    const init = await request('initialize', {
      protocolVersion: mcp.protocol,
      capabilities: {},
      clientInfo: { name: 'skillrt-web', version: '1.0.0' },
    });
    mcp.protocol = init.protocolVersion;
    await notify('notifications/initialized');
    for (const tool of await listAll('tools/list', 'tools')) tools.set(tool.name, tool);
    const names = [...tools.keys()].sort();
    $('skill').replaceChildren(...names.map((name) => {
      const { title } = tools.get(name);
      return el('option', { value: name }, title ? `${name} — ${title}` : name);
    }));
    selectSkill(tools.has('hello') ? 'hello' : names[0]);
    for (const id of ['skill', 'run-button', 'ask-button']) $(id).disabled = false;
    const { name, version } = init.serverInfo;
    setStatus(`Connected to ${name} ${version}: ${tools.size} skills.`);
    document.body.dataset.ready = 'true';
  } catch (error) {
    setStatus(`Cannot talk to the server at /mcp: ${error.message}. Open the address that `
      + '`skillrt serve --http` printed (with its ?token=).', true);
  }
}

start();
