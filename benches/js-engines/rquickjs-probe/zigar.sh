#!/bin/bash
# The archiver to go with zigcc.sh.
exec "${ZIG_PYTHON:-python3}" -m ziglang ar "$@"
