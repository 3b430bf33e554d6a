// linpipe — safe producer/consumer pipelines for warp-specialised GPU kernels.
// `import linpipe;` from plain C++ (HostBackend) or clang CUDA (NvidiaMbarBackend, PTX wrappers).
module;
export module linpipe;
export import :config;
export import :clock;
export import :ptx_mbarrier;
export import :ptx_bulk_copy;
export import :ptx_tma;
export import :ptx_wgmma;
export import :ptx_cluster;
export import :ptx_sync;
export import :backend;
export import :barrier_roles;
export import :trace;
export import :trace_report;
export import :nvidia_mbar_backend;
export import :host_backend;
export import :diagnostics;
export import :driver_api;
export import :tensor_map;
export import :device_reports;
export import :stage;
export import :scope;
export import :release_policies;
export import :stage_lag;
export import :pipeline;
export import :storage;
