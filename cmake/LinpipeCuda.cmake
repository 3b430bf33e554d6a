# linpipe's CUDA flavour: clang CUDA importing the `linpipe` C++20 module.
#
# The flavour is a target, linpipe::cuda. A target that links it (directly) gets its `.cu`
# sources compiled with clang as CUDA, `import linpipe;` resolved on the host and the device
# side, the toolkit's headers for its C++ sources and the static CUDA runtime:
#
#   target_link_libraries(app PRIVATE linpipe::cuda)
#   target_sources(app PRIVATE kernel.cu)
#   set_target_properties(app PROPERTIES LINPIPE_CUDA_ARCHITECTURES "sm_90a")  # optional
#
# or, in one call, linpipe_target_cuda_sources(<target> [ARCHS <arch>...] SOURCES <file.cu>...).
#
# GPU arches: the target property LINPIPE_CUDA_ARCHITECTURES, initialised from the variable of
# the same name (a cache variable, default sm_90a) when the target is created. The toolkit:
# LINPIPE_CUDA_PATH, else $CUDA_PATH, else /usr/local/cuda; the path checked is the path used.
# The flags themselves live in linpipe_cuda_flags.json beside this file, which linpipe-tidy
# and the checker's tests read too.
#
# How: CMake scans CXX sources only, and a CUDA compile has two sides, so the flavour needs a
# built module interface (BMI) for the host side and one per GPU arch for the device side. They
# are built once per build tree with custom commands; at the end of the configure step every
# target that links linpipe::cuda gets its `.cu` sources pointed at them.
include_guard(GLOBAL)
include("${CMAKE_CURRENT_LIST_DIR}/LinpipeModuleUnits.cmake")

set(_linpipe_flags_file "${CMAKE_CURRENT_LIST_DIR}/linpipe_cuda_flags.json")
set(_linpipe_bmi_step "${CMAKE_CURRENT_LIST_DIR}/LinpipeBmiStep.cmake")
file(READ "${_linpipe_flags_file}" _linpipe_flags_json)
set_property(GLOBAL PROPERTY _linpipe_flags_json "${_linpipe_flags_json}")
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${_linpipe_flags_file}")

# The flag list `key` of linpipe_cuda_flags.json, with {cuda_path} and {module_dir} filled in
# and any further `placeholder value` pairs given.
function(_linpipe_flags out key)
  get_property(_linpipe_flags_json GLOBAL PROPERTY _linpipe_flags_json)
  string(JSON count LENGTH "${_linpipe_flags_json}" "${key}")
  set(values cuda_path "${LINPIPE_CUDA_PATH}" module_dir "${LINPIPE_MODULE_SOURCE_DIR}" ${ARGN})
  set(flags "")
  if(count GREATER 0)
    math(EXPR last "${count} - 1")
    foreach(i RANGE ${last})
      string(JSON flag GET "${_linpipe_flags_json}" "${key}" ${i})
      set(rest ${values})
      while(rest)
        list(POP_FRONT rest name value)
        string(REPLACE "{${name}}" "${value}" flag "${flag}")
      endwhile()
      list(APPEND flags "${flag}")
    endforeach()
  endif()
  set(${out} ${flags} PARENT_SCOPE)
endfunction()

_linpipe_flags(_linpipe_default_archs default_cuda_architectures)
set(LINPIPE_CUDA_ARCHITECTURES "${_linpipe_default_archs}" CACHE STRING
    "GPU arches of linpipe's CUDA flavour (initialises each target's LINPIPE_CUDA_ARCHITECTURES)")
set(LINPIPE_CUDA_BMI_FLAGS "" CACHE STRING "Extra flags for linpipe's CUDA module interfaces")
if(DEFINED ENV{XDG_CACHE_HOME} AND NOT "$ENV{XDG_CACHE_HOME}" STREQUAL "")
  set(_linpipe_bmi_cache "$ENV{XDG_CACHE_HOME}/linpipe/bmi")
elseif(DEFINED ENV{HOME} AND NOT "$ENV{HOME}" STREQUAL "")
  set(_linpipe_bmi_cache "$ENV{HOME}/.cache/linpipe/bmi")
else()
  set(_linpipe_bmi_cache "")
endif()
set(LINPIPE_BMI_CACHE "${_linpipe_bmi_cache}" CACHE PATH
    "Folder of linpipe's CUDA module interfaces, shared by build trees with the same compiler, toolkit and flags (empty: inside each build tree)")
option(LINPIPE_ENABLE_CUDA "Build linpipe's CUDA flavour when a toolkit is found" ON)
define_property(TARGET PROPERTY LINPIPE_CUDA_ARCHITECTURES
  INITIALIZE_FROM_VARIABLE LINPIPE_CUDA_ARCHITECTURES
  BRIEF_DOCS "GPU arches this target's .cu sources are compiled for (linpipe::cuda)")

# Finds the toolkit at LINPIPE_CUDA_PATH if set, else $CUDA_PATH, else /usr/local/cuda (the path
# checked is the path used); sets LINPIPE_CUDA_FOUND and a reason, and defines linpipe::cuda
# when found. A LINPIPE_CUDA_PATH given explicitly that holds no toolkit stops the configure
# step with a sentence.
function(linpipe_find_cuda)
  set(found FALSE)
  set(reason "")
  set(path "${LINPIPE_CUDA_PATH}")
  set(explicit TRUE)
  if(NOT path)
    set(explicit FALSE)
    set(path "$ENV{CUDA_PATH}")
  endif()
  if(NOT path)
    set(path "/usr/local/cuda")
  endif()
  if(NOT LINPIPE_ENABLE_CUDA)
    set(reason "LINPIPE_ENABLE_CUDA is OFF")
  elseif(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    set(reason "the C++ compiler is ${CMAKE_CXX_COMPILER_ID}; the CUDA flavour needs clang++")
  elseif(NOT EXISTS "${path}/include/cuda_runtime.h" OR NOT EXISTS "${path}/lib64/libcudart_static.a")
    set(reason "no CUDA toolkit at ${path} (set LINPIPE_CUDA_PATH to the toolkit's root)")
    if(explicit)
      message(FATAL_ERROR "linpipe: LINPIPE_CUDA_PATH=${path} holds no CUDA toolkit (no "
                          "include/cuda_runtime.h or lib64/libcudart_static.a there); point it at "
                          "the toolkit's root, e.g. /usr/local/cuda")
    endif()
  else()
    set(found TRUE)
  endif()
  set(LINPIPE_CUDA_FOUND ${found} PARENT_SCOPE)
  set(LINPIPE_CUDA_SKIP_REASON "${reason}" PARENT_SCOPE)
  set_property(GLOBAL PROPERTY _linpipe_cuda_skip_reason "${reason}")
  if(found)  # remembered only once it holds a toolkit, so a later configure checks it again
    set(LINPIPE_CUDA_PATH "${path}" CACHE PATH "CUDA toolkit used by linpipe's CUDA flavour")
    if(NOT TARGET linpipe::cuda)
      # What the target's C++ sources need too: the toolkit's headers, the static runtime.
      add_library(linpipe::cuda INTERFACE IMPORTED GLOBAL)
      set_target_properties(linpipe::cuda PROPERTIES
        INTERFACE_INCLUDE_DIRECTORIES "${path}/include"
        INTERFACE_LINK_LIBRARIES "${path}/lib64/libcudart_static.a;dl;rt;Threads::Threads")
    endif()
  endif()
endfunction()

# The build's own compile flags (CMAKE_CXX_FLAGS, the build type's, LINPIPE_CUDA_BMI_FLAGS).
function(_linpipe_cuda_build_flags out)
  string(TOUPPER "${CMAKE_BUILD_TYPE}" config)
  separate_arguments(flags UNIX_COMMAND
                     "${CMAKE_CXX_FLAGS} ${CMAKE_CXX_FLAGS_${config}} ${LINPIPE_CUDA_BMI_FLAGS}")
  set(${out} ${flags} PARENT_SCOPE)
endfunction()

# The device side is always optimised: at -O0 (with -g, ptxas's device-debug mode) ptxas
# serialises wgmma and ignores setmaxnreg, so a debug build's kernels would not be the kernels
# the benchmarks time, and the serialisation gate rejects them. A build whose flags do not
# optimise (Debug) keeps its host side as it is and gets -O2 on the device side; one that
# does (-O1/-O2/-O3/-Os) is left alone.
function(_linpipe_cuda_device_opt out)
  _linpipe_cuda_build_flags(flags)
  set(opt -O2)
  foreach(flag IN LISTS flags)
    if(flag STREQUAL "-O0")
      set(opt -O2)
    elseif(flag MATCHES "^-O")
      set(opt "")
    endif()
  endforeach()
  set(${out} ${opt} PARENT_SCOPE)
endfunction()

# The GPU arch a side's BMIs are compiled with: a device side's own; for "host", the arch of
# the device side that asked first (one host set per tree serves every target's arches).
function(_linpipe_cuda_side_arch side arch out)
  if(side STREQUAL "host")
    get_property(first GLOBAL PROPERTY _linpipe_host_bmi_arch)
    if(first)
      set(arch ${first})
    else()
      set_property(GLOBAL PROPERTY _linpipe_host_bmi_arch ${arch})
    endif()
  endif()
  set(${out} ${arch} PARENT_SCOPE)
endfunction()

# The flags one side's BMIs are built with: "host" or a GPU arch such as sm_90a.
function(_linpipe_cuda_bmi_flags side arch out)
  _linpipe_cuda_side_arch(${side} ${arch} arch)
  if(side STREQUAL "host")
    set(side_flag --cuda-host-only)
  else()
    set(side_flag --cuda-device-only)
  endif()
  _linpipe_flags(compile cuda_compile)
  _linpipe_flags(arch_flags cuda_arch arch ${arch})
  _linpipe_flags(interface cuda_module_interface)
  # What CMake gives every CXX compile of this build, so BMI and importer agree.
  _linpipe_cuda_build_flags(build_flags)
  set(flags ${LINPIPE_CUDA_STD} ${build_flags} ${compile} ${arch_flags})
  if(NOT side STREQUAL "host")
    _linpipe_cuda_device_opt(device_opt)
    list(APPEND flags ${device_opt})
  endif()
  set(${out} ${flags} ${interface} ${side_flag} PARENT_SCOPE)
endfunction()

# The folder of one side's BMIs. With LINPIPE_BMI_CACHE (the default), a folder there named by
# what the BMIs depend on: the compiler, the toolkit and flags (all in the flags) and the module
# sources' folder, so build trees that agree on all of it share one set of BMIs (a second tree,
# or a Debug tree beside a Release one with the same flags, builds none). Else inside the tree.
function(_linpipe_cuda_bmi_dir side arch out)
  if(NOT LINPIPE_BMI_CACHE)
    set(${out} "${CMAKE_BINARY_DIR}/linpipe_bmi/cuda-${side}" PARENT_SCOPE)
    return()
  endif()
  _linpipe_cuda_bmi_flags(${side} ${arch} flags)
  string(SHA256 key "${CMAKE_CXX_COMPILER}\n${CMAKE_CXX_COMPILER_VERSION}\n${flags}\n${LINPIPE_MODULE_SOURCE_DIR}")
  string(SUBSTRING "${key}" 0 16 key)
  set(${out} "${LINPIPE_BMI_CACHE}/cuda-${side}-${key}" PARENT_SCOPE)
endfunction()

# Marks a folder of the shared cache as in use, and removes the cache's folders that no build
# tree has configured for 30 days (flags or sources since changed): each configure marks the
# folders it uses. A tree that still needs a removed folder rebuilds it at its next build.
function(_linpipe_bmi_cache_mark dir)
  file(MAKE_DIRECTORY "${dir}")
  file(TOUCH "${dir}/.configured")
  file(GLOB folders LIST_DIRECTORIES true "${LINPIPE_BMI_CACHE}/cuda-*")
  string(TIMESTAMP now "%s" UTC)
  foreach(folder IN LISTS folders)
    if(IS_DIRECTORY "${folder}" AND EXISTS "${folder}/.configured")
      file(TIMESTAMP "${folder}/.configured" configured "%s" UTC)
      math(EXPR age "${now} - ${configured}")
      if(age GREATER 2592000)
        file(REMOVE_RECURSE "${folder}")
      endif()
    endif()
  endforeach()
endfunction()

# Builds the BMIs of one side ("host" or an arch such as sm_90a) behind the target
# linpipe_cuda_bmis_<side>; returns the BMI files. `arch` is the GPU arch the side is compiled
# with (for "host", the arch of the device side it pairs with). Each is built by
# LinpipeBmiStep.cmake, which compiles only what is missing or stale in a shared folder.
function(_linpipe_cuda_bmis side arch out_files)
  _linpipe_cuda_bmi_dir(${side} ${arch} dir)
  get_property(done GLOBAL PROPERTY "_linpipe_bmis_${side}")
  set(files "")
  foreach(unit IN LISTS LINPIPE_MODULE_PARTITIONS ITEMS "")
    if(unit STREQUAL "")
      list(APPEND files "${dir}/linpipe.pcm")
    else()
      list(APPEND files "${dir}/linpipe-${unit}.pcm")
    endif()
  endforeach()
  if(NOT done)
    if(LINPIPE_BMI_CACHE)
      _linpipe_bmi_cache_mark("${dir}")
    endif()
    _linpipe_cuda_bmi_flags(${side} ${arch} flags)
    set(headers "")
    foreach(header IN LISTS LINPIPE_MODULE_HEADERS)
      list(APPEND headers "${LINPIPE_MODULE_SOURCE_DIR}/${header}")
    endforeach()
    set(built "")
    foreach(unit IN LISTS LINPIPE_MODULE_PARTITIONS ITEMS "")
      if(unit STREQUAL "")
        set(src "${LINPIPE_MODULE_SOURCE_DIR}/linpipe.cppm")
        set(pcm "${dir}/linpipe.pcm")
        set(name "linpipe")
      else()
        set(src "${LINPIPE_MODULE_SOURCE_DIR}/${unit}.cppm")
        set(pcm "${dir}/linpipe-${unit}.pcm")
        set(name "linpipe:${unit}")
      endif()
      # Each unit waits only for the partitions it imports, so independent ones build in
      # parallel (the list's order is a valid order, not a chain).
      file(STRINGS "${src}" imports REGEX "^(export +)?import +:[a-z_0-9]+;")
      set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${src}")  # imports change
      set(needs "")
      foreach(line IN LISTS imports)
        string(REGEX REPLACE "^(export +)?import +:([a-z_0-9]+);.*" "linpipe-\\2.pcm" needed "${line}")
        list(APPEND needs "${dir}/${needed}")
      endforeach()
      # cuda_module_interface has -nocudainc: the driver's forced include would precede
      # `module;`. A unit's global module fragment has the execution-space attributes instead
      # (linpipe_cuda_attributes.h) and, where it calls the runtime, <cuda_runtime_api.h>.
      set(inputs "${src}" ${headers} ${needs})
      list(JOIN inputs "|" inputs_arg)
      add_custom_command(
        OUTPUT "${pcm}"
        COMMAND "${CMAKE_COMMAND}" "-DOUT=${pcm}" "-DINPUTS=${inputs_arg}"
                -P "${_linpipe_bmi_step}" --
                "${CMAKE_CXX_COMPILER}" ${flags} "-fprebuilt-module-path=${dir}" "${src}"
        DEPENDS ${inputs} "${_linpipe_flags_file}" "${_linpipe_bmi_step}"
        COMMENT "linpipe: module interface ${name} (CUDA ${side})"
        VERBATIM)
      list(APPEND built "${pcm}")
    endforeach()
    add_custom_target(linpipe_cuda_bmis_${side} DEPENDS ${built})
    set_property(GLOBAL PROPERTY "_linpipe_bmis_${side}" TRUE)
  endif()
  set(${out_files} "${files}" PARENT_SCOPE)
endfunction()

# The flags a `.cu` file importing linpipe is compiled with for these arches (the first one's
# host side), and the BMIs it depends on; the BMI targets are created on first use.
function(linpipe_cuda_import_flags out_flags out_depends)
  set(archs ${ARGN})
  list(GET archs 0 first_arch)
  _linpipe_flags(flags cuda_compile)
  _linpipe_cuda_bmi_dir(host ${first_arch} host_dir)
  _linpipe_cuda_bmis(host ${first_arch} depends)
  _linpipe_flags(host_import cuda_import_host host_bmi_dir "${host_dir}")
  list(APPEND flags ${host_import})
  _linpipe_cuda_device_opt(device_opt)
  foreach(arch IN LISTS archs)
    _linpipe_cuda_bmi_dir(${arch} ${arch} device_dir)
    _linpipe_cuda_bmis(${arch} ${arch} device_bmis)
    list(APPEND depends ${device_bmis})
    _linpipe_flags(arch_flags cuda_arch arch ${arch})
    _linpipe_flags(device_import cuda_import_device arch ${arch} device_bmi_dir "${device_dir}")
    list(APPEND flags ${arch_flags} ${device_import})
    foreach(opt IN LISTS device_opt)
      list(APPEND flags -Xarch_${arch} ${opt})
    endforeach()
  endforeach()
  _linpipe_flags(import cuda_import)
  list(APPEND flags ${import})
  list(APPEND depends "${LINPIPE_MODULE_SOURCE_DIR}/linpipe_cuda_prelude.h")
  set(${out_flags} ${flags} PARENT_SCOPE)
  set(${out_depends} ${depends} PARENT_SCOPE)
endfunction()

# The NVIDIA backend needs SM_90's mbarrier transaction counts, clusters and TMA.
function(_linpipe_check_archs target archs)
  if(NOT archs)
    message(FATAL_ERROR "linpipe: target ${target} links linpipe::cuda but no GPU arch is set; "
                        "set the variable or target property LINPIPE_CUDA_ARCHITECTURES "
                        "(e.g. sm_90a)")
  endif()
  foreach(arch IN LISTS archs)
    if(NOT arch MATCHES "^sm_(9[0-9]|1[0-9][0-9])a?$")
      message(FATAL_ERROR "linpipe: target ${target}: LINPIPE_CUDA_ARCHITECTURES has '${arch}'; "
                          "linpipe's NVIDIA backend needs sm_90 or newer (write it as sm_90a for "
                          "Hopper's wgmma and setmaxnreg)")
    endif()
  endforeach()
endfunction()

# Adds `.cu` sources to a target and links it to linpipe::cuda; ARCHS sets its arches.
function(linpipe_target_cuda_sources target)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "" "ARCHS;SOURCES")
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "linpipe_target_cuda_sources: unknown arguments ${arg_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT arg_SOURCES)
    message(FATAL_ERROR "linpipe_target_cuda_sources(${target}): give SOURCES <file.cu>...")
  endif()
  if(NOT TARGET ${target})
    message(FATAL_ERROR "linpipe_target_cuda_sources: ${target} is not a target")
  endif()
  if(NOT LINPIPE_CUDA_FOUND)
    message(FATAL_ERROR "linpipe_target_cuda_sources(${target}): ${LINPIPE_CUDA_SKIP_REASON}")
  endif()
  if(arg_ARCHS)
    set_property(TARGET ${target} PROPERTY LINPIPE_CUDA_ARCHITECTURES ${arg_ARCHS})
  endif()
  _linpipe_target_archs(${target} archs)
  _linpipe_check_archs(${target} "${archs}")  # early, naming the call's target
  target_sources(${target} PRIVATE ${arg_SOURCES})
  target_link_libraries(${target} PRIVATE linpipe::cuda)
endfunction()

# The arches a target is built for: its LINPIPE_CUDA_ARCHITECTURES, else (a target created
# before linpipe was included) the variable's.
function(_linpipe_target_archs target out)
  get_target_property(archs ${target} LINPIPE_CUDA_ARCHITECTURES)
  if(NOT archs)
    set(archs ${LINPIPE_CUDA_ARCHITECTURES})
  endif()
  set(${out} ${archs} PARENT_SCOPE)
endfunction()

# A target's `.cu` sources, as absolute paths: this runs in the top-level directory, where a
# relative path would name another file.
function(_linpipe_target_cu_sources target out)
  get_target_property(sources ${target} SOURCES)
  get_target_property(dir ${target} SOURCE_DIR)
  set(found "")
  foreach(source IN LISTS sources)
    if(source MATCHES "\\.cu$")
      cmake_path(ABSOLUTE_PATH source BASE_DIRECTORY "${dir}")
      list(APPEND found "${source}")
    endif()
  endforeach()
  set(${out} ${found} PARENT_SCOPE)
endfunction()

# Points a target's `.cu` sources at the CUDA BMIs of its arches.
function(_linpipe_cuda_setup_target target)
  _linpipe_target_archs(${target} archs)
  _linpipe_check_archs(${target} "${archs}")
  linpipe_cuda_import_flags(flags depends ${archs})
  list(APPEND flags "${LINPIPE_CONSUMED_AS_ERROR_FLAG}")
  list(GET archs 0 first_arch)
  add_dependencies(${target} linpipe_cuda_bmis_host)
  foreach(arch IN LISTS archs)
    add_dependencies(${target} linpipe_cuda_bmis_${arch})
  endforeach()
  _linpipe_target_cu_sources(${target} cuda_sources)
  # Compiled as CXX so CMake drives clang, but never scanned: `import linpipe;` here resolves
  # to the CUDA BMIs, not to the plain C++ flavour. Source properties belong to a directory,
  # not a target, and two targets may share a .cu file with different arches: the flags are
  # the compiled target's own property, read through a generator expression.
  set_property(TARGET ${target} PROPERTY LINPIPE_CUDA_COMPILE_OPTIONS "${flags}")
  foreach(source IN LISTS cuda_sources)
    get_source_file_property(known "${source}" TARGET_DIRECTORY ${target} OBJECT_DEPENDS)
    if(NOT known)
      set(known "")
    endif()
    list(APPEND known ${depends})
    list(REMOVE_DUPLICATES known)
    set_source_files_properties("${source}" TARGET_DIRECTORY ${target} PROPERTIES
      LANGUAGE CXX
      CXX_SCAN_FOR_MODULES OFF
      COMPILE_OPTIONS "$<GENEX_EVAL:$<TARGET_PROPERTY:LINPIPE_CUDA_COMPILE_OPTIONS>>"
      OBJECT_DEPENDS "${known}")
  endforeach()
  target_compile_features(${target} PRIVATE cxx_std_20)
  set_target_properties(${target} PROPERTIES CXX_EXTENSIONS ${LINPIPE_CUDA_EXTENSIONS})
endfunction()

# At the end of the configure step: every target that links linpipe::cuda gets its `.cu`
# sources set up. A `.cu` file in a target that uses linpipe without linpipe::cuda, in a project
# without the CUDA language, would silently not be compiled (CMake knows no language for it),
# which surfaces much later as an undefined symbol: that stops the configure step with a
# sentence saying what to write instead.
function(_linpipe_cuda_finish dir)
  get_property(enabled GLOBAL PROPERTY ENABLED_LANGUAGES)
  get_property(targets DIRECTORY "${dir}" PROPERTY BUILDSYSTEM_TARGETS)
  foreach(target IN LISTS targets)
    get_target_property(type ${target} TYPE)
    if(type STREQUAL "INTERFACE_LIBRARY" OR type STREQUAL "UTILITY")
      continue()
    endif()
    get_target_property(libs ${target} LINK_LIBRARIES)
    if("linpipe::cuda" IN_LIST libs)
      if(NOT TARGET linpipe::cuda)
        message(FATAL_ERROR "linpipe: target ${target} links linpipe::cuda, which this build "
                            "does not have: ${LINPIPE_CUDA_SKIP_REASON}")
      endif()
      _linpipe_cuda_setup_target(${target})
      continue()
    endif()
    if(NOT libs MATCHES "linpipe" OR "CUDA" IN_LIST enabled)
      continue()
    endif()
    _linpipe_target_cu_sources(${target} sources)
    foreach(source IN LISTS sources)
      get_source_file_property(language "${source}" TARGET_DIRECTORY ${target} LANGUAGE)
      if(NOT language)
        message(FATAL_ERROR "linpipe: target ${target} lists ${source}, which this project does not "
                            "compile (no CUDA language): link the target to linpipe::cuda "
                            "(target_link_libraries(${target} PRIVATE linpipe::cuda)) or add it "
                            "with linpipe_target_cuda_sources(${target} SOURCES ${source})")
      endif()
    endforeach()
  endforeach()
  get_property(subdirs DIRECTORY "${dir}" PROPERTY SUBDIRECTORIES)
  foreach(subdir IN LISTS subdirs)
    _linpipe_cuda_finish("${subdir}")
  endforeach()
endfunction()
# The BMIs and their importers must agree on GNU extensions; follow CMake's default (ON) unless
# the project turned them off. linpipe_target_cuda_sources pins the target to the same choice.
if(NOT DEFINED CMAKE_CXX_EXTENSIONS OR CMAKE_CXX_EXTENSIONS)
  set(LINPIPE_CUDA_STD -std=gnu++20)
  set(LINPIPE_CUDA_EXTENSIONS ON)
else()
  set(LINPIPE_CUDA_STD -std=c++20)
  set(LINPIPE_CUDA_EXTENSIONS OFF)
endif()

find_package(Threads REQUIRED)

# The deferred call runs in the top-level directory, which may not be where linpipe was found:
# it takes linpipe's settings from where this file was included.
set(_linpipe_cuda_settings LINPIPE_MODULE_SOURCE_DIR LINPIPE_MODULE_PARTITIONS
    LINPIPE_CONSUMED_AS_ERROR_FLAG LINPIPE_CUDA_STD LINPIPE_CUDA_EXTENSIONS _linpipe_flags_file)
foreach(_linpipe_var IN LISTS _linpipe_cuda_settings)
  set_property(GLOBAL PROPERTY "_linpipe_setting_${_linpipe_var}" "${${_linpipe_var}}")
endforeach()
function(_linpipe_cuda_finish_all)
  foreach(var ${ARGN})
    get_property(value GLOBAL PROPERTY "_linpipe_setting_${var}")
    set(${var} "${value}")
  endforeach()
  get_property(LINPIPE_CUDA_SKIP_REASON GLOBAL PROPERTY _linpipe_cuda_skip_reason)
  _linpipe_cuda_finish("${CMAKE_SOURCE_DIR}")
endfunction()
cmake_language(EVAL CODE "cmake_language(DEFER DIRECTORY [[${CMAKE_SOURCE_DIR}]] CALL \
  _linpipe_cuda_finish_all ${_linpipe_cuda_settings})")
