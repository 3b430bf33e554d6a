# The module units of `linpipe`, in dependency order (each may import the ones before it).
# One list, read by the plain C++ target (FILE_SET CXX_MODULES) and the CUDA BMI builder.
set(LINPIPE_MODULE_PARTITIONS
  config
  ptx_mbarrier
  ptx_bulk_copy
  ptx_tma
  ptx_wgmma
  ptx_cluster
  ptx_sync
  ptx_math
  clock
  backend
  barrier_roles
  nvidia_mbar_backend
  host_backend
  diagnostics
  trace
  trace_ring
  trace_report
  driver_api
  stream_share
  stream_scratch
  tensor_map
  device_reports
  stage
  scope
  release_policies
  stage_lag
  pipeline
  shared_plan
  storage
  warp_roles
  work_schedule
  dynamic_schedule
  stream_k
  partial_flags
  ordered_turns
  mbar_ordered_turns
  store_epilogue
  staged_store
  accumulator_box
  launch)
set(LINPIPE_MODULE_HEADERS linpipe_macros.h linpipe_cuda_attributes.h linpipe_cuda_prelude.h)

# -Werror=consumed (the typestate layer) for every clang C++ compile that uses linpipe (not an
# nvcc CUDA-language source, which has no such flag), unless the target says
# LINPIPE_CONSUMED_AS_ERROR OFF (unset counts as ON; a target created after
# `set(LINPIPE_CONSUMED_AS_ERROR OFF)` starts with OFF). A plain flag could not be overridden:
# usage requirements land after the target's own options, so a user's -Wno-consumed would lose.
define_property(TARGET PROPERTY LINPIPE_CONSUMED_AS_ERROR INITIALIZE_FROM_VARIABLE LINPIPE_CONSUMED_AS_ERROR
  BRIEF_DOCS "OFF: linpipe does not add -Werror=consumed to this target")
set(_linpipe_consumed "$<TARGET_PROPERTY:LINPIPE_CONSUMED_AS_ERROR>")
set(LINPIPE_CONSUMED_AS_ERROR_FLAG
    "$<$<AND:$<COMPILE_LANG_AND_ID:CXX,Clang>,$<OR:$<STREQUAL:${_linpipe_consumed},>,$<BOOL:${_linpipe_consumed}>>>:-Werror=consumed>")
unset(_linpipe_consumed)
