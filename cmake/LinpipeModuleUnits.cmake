# The module units of `linpipe`, in dependency order (each may import the ones before it).
# One list, read by the plain C++ target (FILE_SET CXX_MODULES) and the CUDA BMI builder.
set(LINPIPE_MODULE_PARTITIONS
  config
  clock
  ptx_mbarrier
  ptx_bulk_copy
  ptx_tma
  ptx_wgmma
  ptx_cluster
  ptx_sync
  backend
  barrier_roles
  nvidia_mbar_backend
  host_backend
  diagnostics
  driver_api
  tensor_map
  device_reports
  stage
  scope
  release_policies
  stage_lag
  pipeline
  storage)
set(LINPIPE_MODULE_HEADERS linpipe_macros.h linpipe_cuda_prelude.h)
