#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Checks that every source, script and CMake file of the project carries the licence's SPDX line
# in its first three lines (after a #! or <!doctype> line). Names each file without it and exits 1.
#   scripts/check-spdx.sh [TREE]     TREE: a git checkout (default: this one); tracked files only
set -euo pipefail

tree=${1:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
tag='SPDX-License-Identifier: Apache-2.0'

if ! git -C "$tree" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  echo "check-spdx.sh: $tree is not a git checkout (the check reads its tracked files)" >&2
  exit 2
fi

# Whether a tracked file is one we wrote as code: sources, scripts, CMake, the page, the unit,
# the package's maintainer scripts and sysusers file. Data, docs and test inputs are not.
needs_tag() {
  local path=$1
  case "$path" in
    *.cpp | *.cc | *.c | *.h | *.hpp | *.js | *.css | *.html | *.py | *.sh | *.cmake | \
      */CMakeLists.txt | CMakeLists.txt | *.service | packaging/*.conf | \
      .ci/* | packaging/deb/postinst | packaging/deb/prerm | packaging/deb/postrm)
      return 0 ;;
  esac
  # Any other executable script.
  [ "$(head -c 2 "$tree/$path" 2>/dev/null)" = '#!' ]
}

missing=()
while IFS= read -r -d '' path; do
  [ -f "$tree/$path" ] || continue # deleted in the work tree, not yet committed
  needs_tag "$path" || continue
  if ! head -n 3 "$tree/$path" | grep -qF "$tag"; then
    missing+=("$path")
  fi
done < <(git -C "$tree" ls-files -z --cached --others --exclude-standard)

if [ ${#missing[@]} -gt 0 ]; then
  echo "check-spdx.sh: ${#missing[@]} file(s) without '$tag' in their first 3 lines:" >&2
  for path in "${missing[@]}"; do echo "  $path" >&2; done
  echo "Add it as a comment on line 1 (line 2 after a #! or <!doctype> line), as in any file here." >&2
  exit 1
fi
echo "check-spdx.sh: every source, script and CMake file carries '$tag'"
