#!/usr/bin/env bash
# ci-doc-check.sh — the docs checks a CI job runs: links, index freshness/update, and `kb check`.
#
#   scripts/ci-doc-check.sh [KB_DIR] [SPEC]
#
# KB_DIR defaults to sample_kb, SPEC to KB_DIR/kb-checks.yaml. Set KB_FORMAT=github for workflow
# annotations (the default under GitHub Actions), KB_REPORT_DIR to also write JUnit XML reports.
# Exit code: the first failing step's (1 = a check or link failed, 2 = bad spec/usage, 3 = index).
set -euo pipefail

kb_dir="${1:-sample_kb}"
spec="${2:-$kb_dir/kb-checks.yaml}"
kb="${KB_BIN:-kb}"
if [[ -n "${KB_FORMAT:-}" ]]; then
  format="$KB_FORMAT"
elif [[ "${GITHUB_ACTIONS:-}" == "true" ]]; then
  format="github"
else
  format="human"
fi
report_dir="${KB_REPORT_DIR:-}"

links_args=(links --kb "$kb_dir" --format "$format")
check_args=(check "$spec" --kb "$kb_dir" --index --format "$format")
if [[ -n "$report_dir" ]]; then
  mkdir -p "$report_dir"
  links_args=(links --kb "$kb_dir" --format junit --output "$report_dir/kb-links.xml")
  check_args=(check "$spec" --kb "$kb_dir" --index --format junit --output "$report_dir/kb-check.xml")
fi

# collapsible log sections on GitHub Actions; plain output elsewhere
group() { [[ "${GITHUB_ACTIONS:-}" == "true" ]] && echo "::group::$*" || true; }
endgroup() { [[ "${GITHUB_ACTIONS:-}" == "true" ]] && echo "::endgroup::" || true; }

status=0
group "kb links ($kb_dir)"
"$kb" "${links_args[@]}" || status=$?
endgroup

# --index brings the index up to date first (a CI cache of .kb/ makes this incremental);
# drop it and run `kb index --check` instead to fail (exit 3) on a stale committed index.
group "kb check ($spec)"
"$kb" "${check_args[@]}" || { rc=$?; [[ $status -eq 0 ]] && status=$rc; }
endgroup

exit "$status"
