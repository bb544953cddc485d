#!/bin/sh
# Hangs forever without reading stdin or writing anything.
sleep 1000
