#!/usr/bin/env bash
# Re-copies the bundled documentation from two local git clones at the commits they have
# checked out: torch_npu (Ascend/pytorch) and op-plugin (Ascend/op-plugin). Writes docs/ and
# manifest.tsv (local file, repository, commit, upstream path); review the diff, then update the
# commits in SOURCES.md.
#   usage: refresh_docs.sh <torch_npu git dir> <op-plugin git dir>
set -euo pipefail
if [ $# -ne 2 ]; then
  echo "usage: $0 <torch_npu git dir> <op-plugin git dir>" >&2
  exit 2
fi
here=$(cd "$(dirname "$0")" && pwd)
out=$here/docs
rm -rf "$out"
mkdir -p "$out"
manifest=$here/manifest.tsv
printf 'file\trepo\tcommit\tpath\n' > "$manifest"

# Keeps the upstream path readable as a local name: ASCII only, one level.
local_name() {
  printf '%s' "$2" | sed -e 's/（beta）/beta-/g' -e 's#/#__#g' -e 's/[^A-Za-z0-9._-]/_/g' \
    | sed -e "s/^/$1__/"
}

copy_matching() {
  local gitdir=$1 repo=$2 short=$3 pattern=$4 exclude=$5
  local commit
  commit=$(git --git-dir "$gitdir" rev-parse HEAD)
  git --git-dir "$gitdir" ls-tree -r --name-only HEAD | grep -E "$pattern" | grep -vE "$exclude" \
    | while IFS= read -r path; do
        name=$(local_name "$short" "$path")
        git --git-dir "$gitdir" show "HEAD:$path" > "$out/$name"
        printf '%s\t%s\t%s\t%s\n' "$name" "$repo" "$commit" "$path" >> "$manifest"
      done
}

# torch_npu: front pages, environment variables, developer notes, installation, user guide,
# the inductor env summary and the test guide. The per-PyTorch-version copies of upstream API
# pages (docs/zh/api/native_api/pytorch_*) repeat pytorch.org and are left out.
copy_matching "$1" Ascend/pytorch torch_npu \
  '^(README(\.zh)?|COMPATIBILITY(\.en)?|CONTRIBUTING(\.en)?|SUPPORT(\.en)?)\.md$|^docs/zh/(api/environment_variable|developer_notes|installation_guide/references|user_guide)/.*\.md$|^docs/zh/installation_guide/[^/]*\.md$|^docs/zh/api/native_api/[^/]*\.md$|^docs/en/developer_notes/.*\.md$|^test/README\.md$|^torch_npu/_inductor/docs/feature/environment_variables_summary\.md$' \
  '_menu_|/tmp/'
# op-plugin: front pages, contribution guide and every API page under docs/.
copy_matching "$2" Ascend/op-plugin op-plugin \
  '^(README(\.zh)?|CONTRIBUTING)\.md$|^docs/.*\.md$' \
  '_menu_|SECURITYNOTE'
echo "copied $(($(wc -l < "$manifest") - 1)) files, $(du -sh "$out" | cut -f1)"
