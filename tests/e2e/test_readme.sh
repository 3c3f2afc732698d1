#!/usr/bin/env bash
# The README's rule list is generated from the checker's own table; it must not drift.
cd "$(dirname "$0")/../.." && exec scripts/readme-rules.sh --check
