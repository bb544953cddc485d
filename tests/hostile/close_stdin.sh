#!/bin/sh
# Closes stdin without reading it, waits a little, then answers.
exec 0<&-
sleep 0.2
printf '{"messages": []}'
