#!/bin/sh
# Persistent reducer that reads every request and never answers.
while IFS= read -r line; do sleep 1000; done
