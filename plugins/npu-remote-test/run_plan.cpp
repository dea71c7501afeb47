#include "run_plan.hpp"

#include <stdexcept>

#include "container_command.hpp"
#include "detail/shell.hpp"

namespace skillrt::npu_remote {

namespace {

using detail::shell_join;
using detail::shell_quote;

std::string base_word(const std::string& base) {
  // remote_base is restricted to characters that need no quoting inside double quotes.
  if (!base.empty() && base.front() == '/') return shell_quote(base);
  return "\"$HOME/" + base + "\"";
}

// `word` followed by `tail` outside its quotes, so a '*' in the tail still globs; tails hold
// only the run id and fixed names.
std::string join_path(const std::string& word, const std::string& tail) { return word + tail; }

std::string heredoc(const std::string& file, const std::string& body, const std::string& tag) {
  const std::string delimiter = "SKILLRT_EOF_" + tag;
  if (("\n" + body).find("\n" + delimiter + "\n") != std::string::npos) {
    throw std::runtime_error("a job line equals the here-document delimiter " + delimiter);
  }
  std::string out = "cat > " + file + " <<'" + delimiter + "'\n" + body;
  if (!body.empty() && body.back() != '\n') out += "\n";
  return out + delimiter + "\n";
}

// Lists a process group as alive while it has a process that is not a zombie; kill -0 alone
// counts zombies that init has not reaped yet.
constexpr const char* kAliveGroupFn =
    "alive_group() {\n"
    "  if command -v ps >/dev/null 2>&1; then\n"
    "    ps -e -o pgid= -o stat= | awk -v g=\"$1\" '$1==g && $2 !~ /^Z/ {f=1} END {exit !f}'\n"
    "  else\n"
    "    kill -0 \"-$1\" 2>/dev/null\n"
    "  fi\n"
    "}\n";

}  // namespace

RunPlan::RunPlan(const Request& request) : request_(request) {
  std::string base = request.remote_base;
  while (base.size() > 1 && base.back() == '/') base.pop_back();
  run_dir_ = join_path(base_word(base), "/" + request.run_id);
  workdir_ = request.workdir.empty() ? join_path(run_dir_, "/work") : shell_quote(request.workdir);
  container_ = request.runtime == "none" ? "" : container_name(request.run_id);
}

std::string RunPlan::probe_script() const {
  std::string base = request_.remote_base;
  while (base.size() > 1 && base.back() == '/') base.pop_back();
  const std::string base_dir = base_word(base);
  std::string s;
  s += "echo '@@home'; echo \"$HOME\"\n";
  s += "echo '@@user'; id -un\n";
  s += "echo '@@kernel'; uname -srm\n";
  s += "echo '@@npu-smi'\n";
  s += "p=$(command -v npu-smi 2>/dev/null)\n";
  s += "if [ -z \"$p\" ] && [ -x /usr/local/bin/npu-smi ]; then p=/usr/local/bin/npu-smi; fi\n";
  s += "if [ -n \"$p\" ]; then echo \"path $p\"; timeout 30 \"$p\" info 2>&1; echo \"rc $?\"; "
       "else echo missing; fi\n";
  s += "echo '@@driver'; cat /usr/local/Ascend/driver/version.info 2>/dev/null || echo missing\n";
  s += "echo '@@cann'; found=\n";
  s += "for f in /usr/local/Ascend/ascend-toolkit/latest/*/ascend_toolkit_install.info "
       "/usr/local/Ascend/cann/*/ascend_toolkit_install.info; do\n"
       "  if [ -r \"$f\" ]; then echo \"file $f\"; cat \"$f\"; found=1; break; fi\n"
       "done\n"
       "[ -n \"$found\" ] || echo missing\n";
  s += "echo '@@device-files'\n";
  s += "for f in /dev/davinci[0-9]* /dev/davinci_manager /dev/devmm_svm /dev/hisi_hdc; do "
       "[ -e \"$f\" ] && echo \"$f\"; done; true\n";
  s += "echo '@@mounts'\n";
  s += "for f in";
  for (const std::string& m : kAscendMounts) s += " " + m;
  s += "; do if [ -e \"$f\" ]; then echo \"present $f\"; else echo \"absent $f\"; fi; done\n";
  s += "echo '@@tools'\n";
  s += "for t in setsid timeout tail ps awk; do if command -v \"$t\" >/dev/null 2>&1; then "
       "echo \"present $t\"; else echo \"missing $t\"; fi; done\n";
  if (request_.runtime != "none") {
    const std::string& rt = request_.runtime;
    s += "echo '@@runtime'\n";
    s += "if command -v " + rt + " >/dev/null 2>&1; then\n";
    s += "  echo \"path $(command -v " + rt + ")\"\n";
    s += "  v=$(" + rt + " version --format '{{.Server.Version}}' 2>&1 | head -n 1)\n";
    s += "  [ -n \"$v\" ] || v=$(" + rt + " version --format '{{.Version}}' 2>&1 | head -n 1)\n";
    s += "  echo \"version $v\"\n";
    s += "  if " + rt + " image inspect " + shell_quote(request_.image) +
         " >/dev/null 2>&1; then echo 'image present'; else echo 'image absent'; fi\n";
    s += "  echo '@@containers'\n";
    s += "  " + container_list_command(rt) + " 2>/dev/null\n";
    s += "else echo missing; fi\n";
  }
  s += "echo '@@disk'\n";
  s += "mkdir -p " + base_dir + " && df -Pk " + base_dir + " | tail -n 1\n";
  s += "echo '@@runs'\n";
  s += "for d in " + join_path(base_dir, "/*/") + "; do\n";
  s += "  [ -f \"${d}owner\" ] || continue\n";
  s += "  pid=$(cat \"${d}pid\" 2>/dev/null); alive=0\n";
  s += "  if [ -n \"$pid\" ] && kill -0 \"$pid\" 2>/dev/null; then alive=1; fi\n";
  s += "  echo \"run $(basename \"$d\") pid=${pid:--} alive=$alive"
       " deadline=$(cat \"${d}deadline_epoch\" 2>/dev/null || echo -)"
       " exit=$(cat \"${d}exit_code\" 2>/dev/null || echo -)"
       " job_pgid=$(cat \"${d}job_pgid\" 2>/dev/null || echo -)"
       " runtime=$(cat \"${d}runtime\" 2>/dev/null || echo -)"
       " container=$(cat \"${d}container\" 2>/dev/null || echo -)"
       " dir=${d%/}\"\n";
  s += "done\n";
  s += "echo '@@now'; date +%s\n";
  s += "echo '@@end'\n";
  return s;
}

std::string RunPlan::job_lines() const {
  const Job& job = request_.job;
  switch (job.kind) {
    case JobKind::kCommand:
      return job.command + "\n";
    case JobKind::kPython: {
      std::vector<std::string> words = {"python3", job.script};
      words.insert(words.end(), job.args.begin(), job.args.end());
      return "exec " + shell_join(words) + "\n";
    }
    case JobKind::kPytest: {
      // -v names every test, -rA repeats every outcome in the short summary with its reason.
      std::vector<std::string> words = {"python3", "-m", "pytest", "-v", "-rA"};
      words.insert(words.end(), job.selection.begin(), job.selection.end());
      words.insert(words.end(), job.args.begin(), job.args.end());
      return "exec " + shell_join(words) + "\n";
    }
    case JobKind::kVllmBench:
      break;
  }
  const std::string port = std::to_string(job.port);
  std::vector<std::string> serve = {"vllm",      "serve",  job.model, "--host",
                                    "127.0.0.1", "--port", port};
  std::vector<std::string> bench = {"vllm",   "bench",     "serve",  "--model", job.model,
                                    "--host", "127.0.0.1", "--port", port};
  if (!job.served_model_name.empty()) {
    serve.insert(serve.end(), {"--served-model-name", job.served_model_name});
    bench.insert(bench.end(), {"--served-model-name", job.served_model_name});
  }
  serve.insert(serve.end(), job.serve_args.begin(), job.serve_args.end());
  bench.insert(bench.end(), job.bench_args.begin(), job.bench_args.end());
  const std::string serve_log = join_path(run_dir_, "/serve.log");
  const std::string ready = std::to_string(job.ready_timeout_s);
  std::string s;
  s += "echo '[npu-remote-test] starting vllm serve on port " + port + ", log in serve.log'\n";
  s += shell_join(serve) + " > " + serve_log + " 2>&1 &\n";
  s += "serve=$!\n";
  s += "waited=0\n";
  s += "until python3 -c 'import sys, urllib.request; urllib.request.urlopen(\"http://127.0.0.1:\""
       " + sys.argv[1] + \"/health\", timeout=2)' " +
       port + " 2>/dev/null; do\n";
  s += "  if ! kill -0 $serve 2>/dev/null; then\n";
  s += "    echo '[npu-remote-test] vllm serve exited before it was ready; last lines of "
       "serve.log:'; tail -n 40 " +
       serve_log + "; exit 3\n";
  s += "  fi\n";
  s += "  if [ $waited -ge " + ready + " ]; then\n";
  s += "    echo '[npu-remote-test] vllm serve not ready after " + ready +
       " s; last lines of "
       "serve.log:'; tail -n 40 " +
       serve_log + "; kill $serve; exit 3\n";
  s += "  fi\n";
  s += "  sleep 5; waited=$((waited + 5))\n";
  s += "done\n";
  s += "echo \"[npu-remote-test] vllm serve ready after ${waited} s\"\n";
  s += shell_join(bench) + "\n";
  s += "rc=$?\n";
  s += "kill $serve 2>/dev/null; wait $serve 2>/dev/null\n";
  s += "exit $rc\n";
  return s;
}

std::string RunPlan::job_script() const {
  std::string s;
  if (request_.runtime == "none") {
    // No container to limit the devices, so the runtime is told which ones it may use.
    if (!request_.env.empty()) s += "set -a; . " + join_path(run_dir_, "/env.sh") + "; set +a\n";
    if (!request_.devices.empty()) {
      std::string list;
      for (int d : request_.devices) list += (list.empty() ? "" : ",") + std::to_string(d);
      s += "export ASCEND_RT_VISIBLE_DEVICES=" + list + "\n";
    }
  }
  s += "cd " + workdir_ + " || exit 96\n";
  for (const std::string& line : request_.job.setup) s += line + "\n";
  s += job_lines();
  return s;
}

std::string RunPlan::job_start_command() const {
  if (request_.runtime == "none") return "sh " + join_path(run_dir_, "/job.sh");
  return container_run_command(request_, run_dir_, workdir_);
}

std::string RunPlan::wrapper_script() const {
  std::string s;
  s += "cd " + run_dir_ + " || exit 97\n";
  // setsid made this shell the leader of a new session and process group: its pid is the pgid.
  s += "echo $$ > pid.tmp && mv pid.tmp pid\n";
  s += "date +%s > started\n";
  // timeout puts itself and the job in one more process group and kills that group at the
  // deadline, then KILLs it 10 s later.
  s += "timeout -k " + std::to_string(kKillAfterS) + " " + std::to_string(request_.deadline_s) +
       " " + job_start_command() + " > output.log 2>&1 &\n";
  s += "t=$!\n";
  s += "echo $t > job_pgid.tmp && mv job_pgid.tmp job_pgid\n";
  s += "wait $t\n";
  s += "rc=$?\n";
  if (!container_.empty()) s += container_remove_command(request_.runtime, container_) + "\n";
  s += "echo $rc > exit_code.tmp && mv exit_code.tmp exit_code\n";
  return s;
}

std::string RunPlan::prepare_script() const {
  const std::string tag = request_.run_id;
  std::string s = "set -e\numask 077\n";
  s += "mkdir -p " + join_path(run_dir_, "/work") + "\n";
  if (!request_.workdir.empty()) {
    s += "[ -d " + workdir_ + " ] || { echo 'workdir " + request_.workdir +
         " does not exist on the host' >&2; exit 95; }\n";
  }
  s += "cd " + run_dir_ + "\n";
  s += "echo npu-remote-test > owner\n";
  s += "echo " + request_.runtime + " > runtime\n";
  s += "echo " + (container_.empty() ? std::string("-") : container_) + " > container\n";
  s += "echo $(( $(date +%s) + " + std::to_string(request_.deadline_s) + " )) > deadline_epoch\n";
  if (!request_.env.empty()) {
    std::string docker_env;
    std::string sh_env;
    for (const auto& [k, v] : request_.env) {
      docker_env += k + "=" + v + "\n";
      sh_env += k + "=" + shell_quote(v) + "\n";
    }
    s += heredoc(request_.runtime == "none" ? "env.sh" : "env",
                 request_.runtime == "none" ? sh_env : docker_env, tag);
  }
  s += heredoc("job.sh", job_script(), tag);
  s += heredoc("wrapper.sh", wrapper_script(), tag);
  s += "echo '" + marker() + " prepared'\n";
  return s;
}

std::string RunPlan::launch_script() const {
  std::string s;
  s += "cd " + run_dir_ + " || exit 97\n";
  s += "setsid sh ./wrapper.sh </dev/null >/dev/null 2>&1 &\n";
  s += "i=0; while { [ ! -s pid ] || [ ! -s job_pgid ]; } && [ $i -lt 100 ]; do "
       "sleep 0.1; i=$((i + 1)); done\n";
  s += "echo \"" + marker() +
       " started pid=$(cat pid 2>/dev/null) job_pgid=$(cat job_pgid "
       "2>/dev/null)\"\n";
  s += "tail -n +1 -F --pid=\"$(cat pid)\" output.log 2>/dev/null\n";
  s += "echo \"" + marker() + " exit $(cat exit_code 2>/dev/null || echo none)\"\n";
  return s;
}

std::string RunPlan::kill_script() const {
  std::string s = kAliveGroupFn;
  s += "cd " + run_dir_ + " 2>/dev/null || { echo '" + marker() + " norun'; exit 0; }\n";
  s += "w=$(cat pid 2>/dev/null); j=$(cat job_pgid 2>/dev/null)\n";
  s += "[ -n \"$j\" ] && kill -TERM \"-$j\" 2>/dev/null\n";
  // The wrapper removes the container and records the exit code once the job group is gone.
  s += "i=0; while [ -n \"$w\" ] && alive_group \"$w\" && [ $i -lt 100 ]; do sleep 0.1; "
       "i=$((i + 1)); done\n";
  s += "[ -n \"$j\" ] && kill -KILL \"-$j\" 2>/dev/null\n";
  s += "[ -n \"$w\" ] && kill -KILL \"-$w\" 2>/dev/null\n";
  if (!container_.empty()) s += container_remove_command(request_.runtime, container_) + "\n";
  s += "i=0; for g in $j $w; do while alive_group \"$g\" && [ $i -lt 50 ]; do sleep 0.1; "
       "i=$((i + 1)); done; done\n";
  s += "for g in $j $w; do alive_group \"$g\" && echo \"" + marker() + " alive $g\"; done\n";
  s += "echo '" + marker() + " killed'\n";
  return s;
}

std::string RunPlan::remove_run_dir_script() const { return "rm -rf " + run_dir_ + "\n"; }

std::string RunPlan::stale_cleanup_script(const std::string& run_dir, const std::string& runtime,
                                          const std::string& container) {
  const std::string dir = shell_quote(run_dir);
  std::string s = kAliveGroupFn;
  s += "d=" + dir + "\n";
  s += "w=$(cat \"$d/pid\" 2>/dev/null); j=$(cat \"$d/job_pgid\" 2>/dev/null)\n";
  s += "[ -n \"$j\" ] && kill -TERM \"-$j\" 2>/dev/null\n";
  s += "[ -n \"$w\" ] && kill -TERM \"-$w\" 2>/dev/null\n";
  s += "i=0; for g in $j $w; do while alive_group \"$g\" && [ $i -lt 50 ]; do sleep 0.1; "
       "i=$((i + 1)); done; done\n";
  s += "[ -n \"$j\" ] && kill -KILL \"-$j\" 2>/dev/null\n";
  s += "[ -n \"$w\" ] && kill -KILL \"-$w\" 2>/dev/null\n";
  if ((runtime == "docker" || runtime == "podman") && !container.empty() && container != "-") {
    s += container_remove_command(runtime, container) + "\n";
  }
  s += "rm -rf \"$d\"\n";
  return s;
}

}  // namespace skillrt::npu_remote
