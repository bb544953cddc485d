#!/bin/sh
# Exits 0 without reading stdin or writing anything.
exit 0
