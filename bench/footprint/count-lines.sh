#!/usr/bin/env bash
# Counts the lines of the small server of issue 38 on mcp-wire and on rmcp 3.11, both the same
# way: the file as rustfmt (edition 2024, default settings) writes it, without blank lines and
# without comment lines (`//`, `///`, `//!`). Prints one `<count> <file>` line per server.
#
#   bench/footprint/count-lines.sh [FILE...]   (default: the two servers)
set -euo pipefail
cd "$(dirname "$0")/../.."
files=("$@")
if [ ${#files[@]} -eq 0 ]; then
  files=(crates/mcp-wire-transport/examples/server.rs bench/footprint/rmcp-server/src/main.rs)
fi
for file in "${files[@]}"; do
  count=$(rustfmt --edition 2024 --emit stdout < "$file" \
    | grep -v -E '^[[:space:]]*($|//)' \
    | wc -l)
  echo "$count $file"
done
