// ajv on the same cases and instances as schema_bench, measured the same way, and the table
// of both side by side. Usage: node ajv_bench.mjs [skillrt-results.json]
import { readFileSync, readdirSync, existsSync } from "node:fs";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import Ajv from "ajv";
import addFormats from "ajv-formats";

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "..", "..");
const minSeconds = Number(process.env.BENCH_MIN_TIME ?? 0.25);
const runs = Number(process.env.BENCH_RUNS ?? 7);

function loadCases() {
  const files = [];
  for (const dir of [join(here, "cases"), join(root, "schemas", "skills")]) {
    if (!existsSync(dir)) continue;
    for (const name of readdirSync(dir)) {
      if (name.endsWith(".input.json")) files.push(join(dir, name));
    }
  }
  // Same order as schema_bench: by full path.
  files.sort();
  const cases = [];
  for (const file of files) {
    const name = file.split("/").pop().slice(0, -".input.json".length);
    const schema = JSON.parse(readFileSync(file, "utf8"));
    const instancesFile = join(dirname(file), `${name}.instances.json`);
    let valid = [];
    let invalid = [];
    if (existsSync(instancesFile)) {
      const sets = JSON.parse(readFileSync(instancesFile, "utf8"));
      valid = sets.valid ?? [];
      invalid = sets.invalid ?? [];
    } else {
      valid = schema.examples ?? [];
    }
    if (valid.length + invalid.length > 0) cases.push({ name, schema, valid, invalid });
  }
  return cases;
}

function measure(validate, instances) {
  let sink = 0;
  const rates = [];
  // The first run warms the JIT and is not counted.
  for (let r = 0; r <= runs; ++r) {
    let count = 0;
    // CPU time, as schema_bench measures: the machine is shared.
    const start = process.cpuUsage();
    let elapsed = 0;
    do {
      for (let k = 0; k < 64; ++k) {
        // Like CompiledSchema::validate(), every error is collected (allErrors).
        if (!validate(instances[count % instances.length])) sink += validate.errors.length;
        ++count;
      }
      const used = process.cpuUsage(start);
      elapsed = (used.user + used.system) / 1e6;
    } while (elapsed < minSeconds);
    if (r > 0) rates.push(count / elapsed);
  }
  if (sink === -1) console.error("");
  return rates;
}

const median = (values) => {
  const v = [...values].sort((a, b) => a - b);
  const n = v.length;
  return n % 2 ? v[(n - 1) / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
};

const results = [];
for (const c of loadCases()) {
  // allErrors: report every violation, as skillrt does. The formats skillrt checks
  // (date, time, date-time) are the ones given to ajv-formats.
  const ajv = new Ajv({ allErrors: true, strict: false });
  addFormats(ajv, ["date", "time", "date-time"]);
  const validate = ajv.compile(c.schema);
  for (const i of c.valid) {
    if (!validate(i)) throw new Error(`${c.name}: ajv rejects a valid instance: ${ajv.errorsText(validate.errors)}`);
  }
  for (const i of c.invalid) {
    if (validate(i)) throw new Error(`${c.name}: ajv accepts an invalid instance`);
  }
  for (const [set, instances] of [["valid", c.valid], ["invalid", c.invalid]]) {
    if (instances.length === 0) continue;
    const rates = measure(validate, instances);
    results.push({ case: c.name, set, instances: instances.length, median_per_s: median(rates), runs_per_s: rates });
  }
}

const fmt = (x) => (x >= 1e6 ? `${(x / 1e6).toFixed(2)}M` : `${(x / 1e3).toFixed(1)}k`);
const skillrtFile = process.argv[2];
if (!skillrtFile) {
  console.log(JSON.stringify(results, null, 1));
  process.exit(0);
}
const ours = JSON.parse(readFileSync(skillrtFile, "utf8"));
const key = (r) => `${r.case}/${r.set}`;
const byKey = new Map(ours.map((r) => [key(r), r]));
const rows = [];
const ratios = { valid: [], invalid: [] };
for (const r of results) {
  const s = byKey.get(key(r));
  if (!s) continue;
  const ratio = s.median_per_s / r.median_per_s;
  ratios[r.set].push(ratio);
  const reference = s.valijson_visitor_median_per_s;
  rows.push(`| ${r.case} | ${r.set} | ${r.instances} | ${fmt(s.median_per_s)} | ${fmt(r.median_per_s)} | ${ratio.toFixed(3)} | ${reference ? fmt(reference) : "-"} |`);
}
const geomean = (xs) => Math.exp(xs.reduce((a, x) => a + Math.log(x), 0) / xs.length);
console.log(`validations per CPU second, median of ${runs} runs of >= ${minSeconds} CPU s each; ratio = skillrt / ajv`);
console.log("");
console.log("| case | instances | n | skillrt validate() | ajv | ratio | valijson's visitor, verdict only |");
console.log("|---|---|---|---|---|---|---|");
for (const row of rows) console.log(row);
console.log("");
for (const set of ["valid", "invalid"]) {
  if (ratios[set].length === 0) continue;
  console.log(`geometric mean of the ratio, ${set} instances (${ratios[set].length} rows): ${geomean(ratios[set]).toFixed(3)}`);
}
