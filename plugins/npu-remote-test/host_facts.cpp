#include "host_facts.hpp"

#include <algorithm>
#include <set>
#include <sstream>

#include "detail/lines.hpp"

namespace skillrt::npu_remote {

namespace {

using nlohmann::json;

std::optional<long long> to_ll(const std::string& s) {
  if (s.empty() || s == "-") return std::nullopt;
  try {
    size_t used = 0;
    const long long v = std::stoll(s, &used);
    if (used != s.size()) return std::nullopt;
    return v;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

// "key=value" fields of a runs line.
std::map<std::string, std::string> fields_of(std::string_view line) {
  std::map<std::string, std::string> out;
  std::istringstream in{std::string(line)};
  for (std::string word; in >> word;) {
    const size_t eq = word.find('=');
    if (eq != std::string::npos) out[word.substr(0, eq)] = word.substr(eq + 1);
  }
  return out;
}

std::string value_after(std::string_view text, std::string_view key) {
  for (std::string_view line : detail::split_lines(text)) {
    line = detail::strip(line);
    if (line.size() > key.size() && line.compare(0, key.size(), key) == 0 &&
        line[key.size()] == '=') {
      return std::string(detail::strip(line.substr(key.size() + 1)));
    }
  }
  return "";
}

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& s : items) out += (out.empty() ? "" : ", ") + s;
  return out;
}

}  // namespace

HostFacts parse_host_facts(std::string_view text) {
  HostFacts f;
  std::map<std::string, std::string> sections;
  std::string current;
  for (std::string_view line : detail::split_lines(text)) {
    if (detail::starts_with(line, "@@") && line.find(' ') == std::string_view::npos) {
      current = std::string(line.substr(2));
      sections[current];
      if (current == "end") f.complete = true;
      continue;
    }
    if (!current.empty()) (sections[current] += line) += '\n';
  }
  auto first_line = [&sections](const std::string& name) {
    const auto lines = detail::split_lines(sections[name]);
    return lines.empty() ? std::string() : std::string(detail::strip(lines.front()));
  };
  f.home = first_line("home");
  f.user = first_line("user");
  f.kernel = first_line("kernel");

  const std::string& smi = sections["npu-smi"];
  if (!smi.empty() && first_line("npu-smi") != "missing") {
    f.npu_smi_found = true;
    std::string body;
    for (std::string_view line : detail::split_lines(smi)) {
      if (detail::starts_with(line, "path ")) {
        f.npu_smi_path = std::string(line.substr(5));
      } else if (detail::starts_with(line, "rc ")) {
        if (auto v = to_ll(std::string(line.substr(3)))) f.npu_smi_status = static_cast<int>(*v);
      } else {
        (body += line) += '\n';
      }
    }
    f.npu_smi_text = body;
    f.npu = parse_npu_smi(body);
  }
  if (first_line("driver") != "missing")
    f.driver_version = value_after(sections["driver"], "Version");
  if (first_line("cann") != "missing") {
    f.cann_file = first_line("cann").substr(std::min<size_t>(5, first_line("cann").size()));
    f.cann_version = value_after(sections["cann"], "version");
  }
  for (std::string_view line : detail::split_lines(sections["device-files"])) {
    if (!detail::strip(line).empty()) f.device_files.emplace_back(detail::strip(line));
  }
  for (std::string_view line : detail::split_lines(sections["mounts"])) {
    if (detail::starts_with(line, "present ")) f.mounts[std::string(line.substr(8))] = true;
    if (detail::starts_with(line, "absent ")) f.mounts[std::string(line.substr(7))] = false;
  }
  for (std::string_view line : detail::split_lines(sections["tools"])) {
    if (detail::starts_with(line, "present ")) f.tools[std::string(line.substr(8))] = true;
    if (detail::starts_with(line, "missing ")) f.tools[std::string(line.substr(8))] = false;
  }
  if (sections.count("runtime") != 0) {
    f.runtime_checked = true;
    for (std::string_view line : detail::split_lines(sections["runtime"])) {
      if (detail::starts_with(line, "path ")) {
        f.runtime_found = true;
        f.runtime_path = std::string(line.substr(5));
      } else if (detail::starts_with(line, "version ")) {
        f.runtime_version = std::string(detail::strip(line.substr(8)));
      } else if (line == "image present") {
        f.image_present = true;
      } else if (line == "image absent") {
        f.image_present = false;
      }
    }
  }
  for (std::string_view line : detail::split_lines(sections["containers"])) {
    std::istringstream in{std::string(line)};
    std::string name;
    std::string id;
    if (in >> name >> id) f.containers.emplace_back(name, id);
  }
  f.disk_line = first_line("disk");
  {
    std::istringstream in(f.disk_line);
    std::vector<std::string> cols;
    for (std::string c; in >> c;) cols.push_back(c);
    if (cols.size() >= 4) {
      if (auto kb = to_ll(cols[3])) f.disk_free_mb = *kb / 1024;
    }
  }
  for (std::string_view line : detail::split_lines(sections["runs"])) {
    if (!detail::starts_with(line, "run ")) continue;
    std::istringstream in{std::string(line)};
    std::string word;
    RemoteRun r;
    in >> word >> r.run_id;
    const auto kv = fields_of(line);
    auto get = [&kv](const char* k) {
      auto it = kv.find(k);
      return it == kv.end() ? std::string() : it->second;
    };
    r.pid = to_ll(get("pid"));
    r.alive = get("alive") == "1";
    r.deadline_epoch = to_ll(get("deadline"));
    if (auto e = to_ll(get("exit"))) r.exit_code = static_cast<int>(*e);
    r.job_pgid = to_ll(get("job_pgid"));
    r.runtime = get("runtime");
    r.container = get("container");
    r.dir = get("dir");
    f.runs.push_back(r);
  }
  f.now_epoch = to_ll(first_line("now"));
  return f;
}

std::vector<Check> evaluate_host(const Request& request, const HostFacts& f) {
  std::vector<Check> checks;
  auto add = [&checks](std::string name, std::string status, std::string detail) {
    checks.push_back({std::move(name), std::move(status), std::move(detail)});
  };
  if (!f.complete) {
    add("probe", "refused",
        "the host check did not finish (its output stops before the end marker); the login "
        "shell may print errors or the host may be overloaded");
  }

  // NPU devices.
  if (!f.npu_smi_found) {
    add("npu-smi", request.require_npu ? "refused" : "skipped",
        "npu-smi is not on the host (not in PATH, not /usr/local/bin/npu-smi): it comes with "
        "the Ascend NPU driver package (Ascend-hdk-<chip>-npu-driver); install the driver, or "
        "set require_npu: false to run without NPU checks" +
            std::string(request.require_npu ? "" : " (require_npu is false: devices unchecked)"));
  } else if (f.npu.chips.empty()) {
    add("npu-smi", request.require_npu ? "refused" : "warning",
        "`" + f.npu_smi_path + " info` listed no NPU (status " +
            (f.npu_smi_status ? std::to_string(*f.npu_smi_status) : std::string("unknown")) +
            "); first lines: " + f.npu_smi_text.substr(0, 200));
  } else {
    add("npu-smi", "ok",
        std::to_string(f.npu.chips.size()) + " NPU chip(s), npu-smi " +
            (f.npu.version.empty() ? std::string("version not printed") : f.npu.version));
    for (int d : request.devices) {
      const std::string name = "device " + std::to_string(d);
      auto chip = std::find_if(f.npu.chips.begin(), f.npu.chips.end(),
                               [d](const NpuChip& c) { return c.device == d; });
      if (chip == f.npu.chips.end()) {
        std::vector<std::string> have;
        for (const NpuChip& c : f.npu.chips) have.push_back(std::to_string(c.device));
        add(name, "refused",
            "/dev/davinci" + std::to_string(d) + " is not among the host's NPUs (" + join(have) +
                "); pick one of those in `devices`");
        continue;
      }
      if (chip->health != "OK") {
        add(name, "refused",
            "NPU " + std::to_string(chip->npu) + " chip " + std::to_string(chip->chip) +
                " reports health '" + chip->health + "'; check `npu-smi info -t health -i " +
                std::to_string(chip->npu) + "` and pick a healthy device");
        continue;
      }
      std::vector<std::string> procs;
      for (const NpuProcess& p : f.npu.processes) {
        if (p.npu == chip->npu && p.chip == chip->chip) {
          procs.push_back(p.name + " (pid " + std::to_string(p.pid) + ")");
        }
      }
      if (!procs.empty()) {
        add(name, request.allow_busy_devices ? "warning" : "refused",
            "in use by " + join(procs) +
                "; pick a free device, stop that job, or set allow_busy_devices: true");
        continue;
      }
      std::string detail = "health OK";
      if (chip->hbm_used_mb && chip->hbm_total_mb && *chip->hbm_total_mb > 0) {
        detail += ", HBM " + std::to_string(static_cast<long long>(*chip->hbm_used_mb)) + " / " +
                  std::to_string(static_cast<long long>(*chip->hbm_total_mb)) + " MB";
        // An idle 910B holds about 3 GB; much more with no process listed usually means a job
        // in another container whose processes npu-smi cannot see.
        if (*chip->hbm_used_mb > 0.25 * *chip->hbm_total_mb) {
          add(name, "warning",
              detail +
                  " in use with no process listed: another container "
                  "may be using it");
          continue;
        }
      }
      if (!chip->device_from_phy_id) {
        detail += "; /dev/davinci" + std::to_string(d) + " taken as NPU id " +
                  std::to_string(chip->npu) + " (npu-smi prints no Phy-ID here)";
      }
      add(name, "ok", detail);
    }
  }
  if (request.require_npu) {
    for (int d : request.devices) {
      const std::string dev = "/dev/davinci" + std::to_string(d);
      if (f.npu_smi_found &&
          std::find(f.device_files.begin(), f.device_files.end(), dev) == f.device_files.end()) {
        add("device file " + dev, "refused", dev + " does not exist on the host");
      }
    }
  }

  // Driver and CANN versions: facts for the record; a container brings its own CANN.
  if (f.driver_version.empty()) {
    add("driver", request.require_npu ? "warning" : "skipped",
        "/usr/local/Ascend/driver/version.info is missing: the NPU driver is not installed "
        "where Ascend containers expect it");
  } else {
    add("driver", "ok", "driver " + f.driver_version);
  }
  if (f.cann_version.empty()) {
    add("cann", request.runtime == "none" && request.require_npu ? "warning" : "ok",
        request.runtime == "none"
            ? std::string("no CANN toolkit under /usr/local/Ascend on the host; a job without a "
                          "container needs it (install Ascend-cann-toolkit)")
            : std::string("no CANN toolkit on the host; the image brings its own"));
  } else {
    add("cann", "ok", "CANN " + f.cann_version + " (" + f.cann_file + ")");
  }

  // Container runtime and the paths it mounts.
  if (request.runtime != "none") {
    if (!f.runtime_found) {
      add("runtime", "refused",
          request.runtime +
              " is not installed on the host (not in PATH); install it, use the "
              "other of docker/podman, or set runtime: none to run on the host");
    } else if (f.runtime_version.empty() ||
               f.runtime_version.find_first_not_of("0123456789.-+abcdefghijklmnopqrstuvwxyz") !=
                   std::string::npos) {
      add("runtime", "refused",
          request.runtime + " at " + f.runtime_path + " does not answer `" + request.runtime +
              " version`: " + f.runtime_version + " (is the daemon running, and is " +
              (f.user.empty() ? "the user" : f.user) + " in the docker group?)");
    } else {
      add("runtime", "ok", request.runtime + " " + f.runtime_version);
      if (f.image_present && !*f.image_present) {
        add("image", "warning",
            request.image + " is not on the host yet; " + request.runtime +
                " run pulls it first, which can take many minutes of the deadline");
      } else if (f.image_present) {
        add("image", "ok", request.image + " present");
      }
    }
    for (const auto& [path, present] : f.mounts) {
      if (!present) {
        add("mount " + path, request.require_npu ? "refused" : "warning",
            path +
                " is missing on the host; the container would start without it (the "
                "Ascend driver installs it)");
      }
    }
  }

  // Tools the run needs on the host itself.
  std::vector<std::string> missing;
  for (const char* tool : {"setsid", "timeout", "tail"}) {
    auto it = f.tools.find(tool);
    if (it == f.tools.end() || !it->second) missing.push_back(tool);
  }
  if (!missing.empty()) {
    add("tools", "refused",
        "missing on the host: " + join(missing) +
            " (setsid is in util-linux, timeout and tail in coreutils); the deadline cannot be "
            "enforced there without them");
  } else {
    add("tools", "ok", "setsid, timeout, tail present");
  }

  // Disk.
  if (!f.disk_free_mb) {
    add("disk", "warning", "free space unknown: `df -Pk` printed '" + f.disk_line + "'");
  } else if (*f.disk_free_mb < request.min_free_disk_mb) {
    add("disk", "refused",
        std::to_string(*f.disk_free_mb) + " MB free where the run dir goes (" +
            request.remote_base + "), below min_free_disk_mb " +
            std::to_string(request.min_free_disk_mb) + "; free space or lower min_free_disk_mb");
  } else {
    add("disk", "ok", std::to_string(*f.disk_free_mb) + " MB free");
  }

  std::stable_partition(checks.begin(), checks.end(),
                        [](const Check& c) { return c.status == "refused"; });
  return checks;
}

json host_facts_json(const HostFacts& f) {
  json chips = json::array();
  for (const NpuChip& c : f.npu.chips) {
    json j = {{"npu", c.npu},
              {"chip", c.chip},
              {"device", c.device},
              {"name", c.name},
              {"health", c.health},
              {"bus_id", c.bus_id},
              {"device_from_phy_id", c.device_from_phy_id}};
    auto put = [&j](const char* k, const std::optional<double>& v) {
      j[k] = v ? json(*v) : json(nullptr);
    };
    put("power_w", c.power_w);
    put("temp_c", c.temp_c);
    put("aicore_pct", c.aicore_pct);
    put("hbm_used_mb", c.hbm_used_mb);
    put("hbm_total_mb", c.hbm_total_mb);
    put("memory_used_mb", c.memory_used_mb);
    put("memory_total_mb", c.memory_total_mb);
    chips.push_back(j);
  }
  json procs = json::array();
  for (const NpuProcess& p : f.npu.processes) {
    procs.push_back({{"npu", p.npu},
                     {"chip", p.chip},
                     {"pid", p.pid},
                     {"name", p.name},
                     {"memory_mb", p.memory_mb ? json(*p.memory_mb) : json(nullptr)}});
  }
  auto opt_str = [](const std::string& s) { return s.empty() ? json(nullptr) : json(s); };
  return {
      {"user", opt_str(f.user)},
      {"home", opt_str(f.home)},
      {"kernel", opt_str(f.kernel)},
      {"npu_smi",
       {{"found", f.npu_smi_found},
        {"path", opt_str(f.npu_smi_path)},
        {"version", opt_str(f.npu.version)},
        {"chips", chips},
        {"processes", procs}}},
      {"driver_version", opt_str(f.driver_version)},
      {"cann_version", opt_str(f.cann_version)},
      {"device_files", f.device_files},
      {"runtime",
       f.runtime_checked
           ? json{{"found", f.runtime_found},
                  {"path", opt_str(f.runtime_path)},
                  {"version", opt_str(f.runtime_version)},
                  {"image_present", f.image_present ? json(*f.image_present) : json(nullptr)}}
           : json(nullptr)},
      {"disk_free_mb", f.disk_free_mb ? json(*f.disk_free_mb) : json(nullptr)},
  };
}

std::vector<StaleVerdict> stale_runs(const HostFacts& f, const std::string& own_run_id,
                                     int grace_s) {
  std::vector<StaleVerdict> out;
  std::set<std::string> seen;
  for (const RemoteRun& r : f.runs) {
    if (r.run_id == own_run_id) continue;
    seen.insert(r.run_id);
    if (!r.alive) {
      out.push_back({r, r.exit_code ? "finished (exit " + std::to_string(*r.exit_code) +
                                          ") but never collected"
                                    : std::string("its wrapper is gone without an exit code "
                                                  "(killed, or the host rebooted)")});
      continue;
    }
    if (r.deadline_epoch && f.now_epoch && *f.now_epoch > *r.deadline_epoch + grace_s) {
      out.push_back({r, "still running " + std::to_string(*f.now_epoch - *r.deadline_epoch) +
                            " s past its deadline"});
    }
  }
  // A container with the owner label whose run dir is gone: nothing will ever remove it.
  for (const auto& [name, id] : f.containers) {
    if (id == own_run_id || seen.count(id) != 0) continue;
    RemoteRun r;
    r.run_id = id;
    r.container = name;
    r.runtime = "";
    out.push_back({r, "container " + name + " has no run dir left"});
  }
  return out;
}

}  // namespace skillrt::npu_remote
