# issue-pipeline: a failing upstream test on stand-in pytorch / torch_npu / op-plugin repositories
# (built by the plugin's test fixture), driven step by step to a commit. Sourced by scripts/demo.sh
# ($bin, $here, step).
if ! "$bin" list 2>/dev/null | grep -q 'issue-pipeline'; then
  echo
  echo "--- issue-pipeline: not built, skipped ---"
else
  ipl_root=$(mktemp -d)
  sh "$here/plugins/issue-pipeline/tests/data/make_fixture.sh" "$ipl_root/fx" >/dev/null
  ipl_in="\"case\": \"test/test_ops.py::TestAdd::test_add\", \"workspace\": \"$ipl_root/ws\", \"python\": \"/usr/bin/python3\""
  ipl_repos="\"repos\": {\"pytorch\": \"$ipl_root/fx/pytorch\", \"torch_npu\": \"$ipl_root/fx/torch_npu\", \"op_plugin\": \"$ipl_root/fx/op_plugin\"}"
  echo
  echo "--- issue-pipeline: env (versions, worktrees, route), then reproduce against the CI log ---"
  step "$bin" run issue-pipeline -q --input "{$ipl_in, $ipl_repos, \"log\": \"$ipl_root/fx/ci.log\", \"step\": \"env\"}"
  step "$bin" run issue-pipeline -q --input "{$ipl_in, \"step\": \"reproduce\"}"
  echo
  echo "--- issue-pipeline: diagnose (rules + skill-to-skill), then fix, verify, deliver with a patch ---"
  step "$bin" run issue-pipeline -q --input "{$ipl_in, \"step\": \"diagnose\"}"
  step "$bin" run issue-pipeline -q --input "{$ipl_in, \"step\": \"all\", \"patch\": {\"op_plugin\": \"$ipl_root/fx/fix.patch\"}}"
  step cat "$ipl_root/ws/test_test_ops.py__TestAdd__test_add/report.md"
  rm -rf "$ipl_root"
fi
