#!/bin/sh
# Persistent reducer that answers its first request with an endless line.
IFS= read -r line
exec cat /dev/zero
