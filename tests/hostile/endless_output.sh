#!/bin/sh
# Writes endless output to stdout.
exec yes '{"messages": [], "padding": "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"}'
