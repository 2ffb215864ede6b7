#!/bin/sh
# Put the reference firmware on a board that runs MicroPython (docs/hardware.md):
#
#   sh firmware/flash.sh die|regie [PORT]
#
# PORT is what mpremote connects to (default: auto, the first USB board it finds;
# or /dev/ttyACM0, ...). Copies firmware/__init__.py, firmware/common/ and
# firmware/KIND/ (no caches), and firmware/KIND/main.py as /main.py, then resets the
# board, which then runs main.py at every power-on.
set -eu
kind=${1:?die or regie}
port=${2:-auto}
case $kind in die|regie) ;; *) echo "die or regie, not $kind" >&2; exit 2 ;; esac
cd "$(dirname "$0")/.."
for dir in firmware firmware/common "firmware/$kind"; do
    mpremote connect "$port" mkdir ":$dir" 2>/dev/null || true  # there already
done
mpremote connect "$port" \
    cp firmware/__init__.py :firmware/ + \
    cp firmware/common/*.py :firmware/common/ + \
    cp "firmware/$kind"/*.py ":firmware/$kind/" + \
    cp "firmware/$kind/main.py" :main.py + \
    reset
echo "flashed the $kind firmware; check it with: companion devices watch PORT"
