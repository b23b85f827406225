# Sourced (from the repository root) by the device scripts that run on the GPU machine: what every run
# records and needs, written once. Older scripts of earlier rounds still spell these out.

# write_env FILE [clocks]: the date, GPU, driver, nvcc and ncu versions into FILE (and the SM and memory
# clocks with "clocks"), the environment each run's results are filed with.
write_env() {
  {
    echo "date_utc: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv
    echo "--- nvcc"; nvcc --version
    echo "--- ncu"; ncu --version
    if [ "${2:-}" = clocks ]; then
      echo "--- nvidia-smi clocks"; nvidia-smi --query-gpu=clocks.sm,clocks.max.sm,clocks.mem --format=csv
    fi
  } > "$1" 2>&1
}

# need_jsonschema: `bankism record`'s trace check needs jsonschema; where the device's Python lacks it,
# install the carried wheels (.carry/whl) into /tmp/site and put that on PYTHONPATH.
need_jsonschema() {
  if ! python3 -c 'import jsonschema' 2>/dev/null; then
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .carry/whl/*.whl
    export PYTHONPATH=/tmp/site
  fi
}
