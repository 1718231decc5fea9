#!/bin/sh
# The archiver to go with cc.sh.
exec "${HWF_ZIG:?HWF_ZIG names the zig executable}" ar "$@"
