#!/bin/bash
# The archiver to go with cc.sh.
exec "${ZIG_PYTHON:?}" -m ziglang ar "$@"
