# linpipe's CUDA flavour: clang CUDA importing the `linpipe` C++20 module.
#
# CMake scans CXX sources only, and a CUDA compile has two sides, so the CUDA flavour needs
# two kinds of built module interface (BMI): one for the host side and one per GPU arch for the
# device side. This file builds them with custom commands and lets a target's .cu sources
# import them.
#
#   linpipe_target_cuda_sources(<target> [ARCHS <arch>...] SOURCES <file.cu>...)
#       Compiles the sources with clang as CUDA for the given arches (default:
#       LINPIPE_CUDA_ARCHS, itself sm_90a by default), makes `import linpipe;` work on both
#       sides, and links the static CUDA runtime.
#
# Inputs: LINPIPE_MODULE_SOURCE_DIR (the .cppm files), LINPIPE_CUDA_PATH (the toolkit).
# Options that change language semantics must match between a BMI and its importers: the BMIs
# take CMAKE_CXX_FLAGS and the build type's flags; add more with LINPIPE_CUDA_BMI_FLAGS.
include_guard(GLOBAL)
include("${CMAKE_CURRENT_LIST_DIR}/LinpipeModuleUnits.cmake")

set(LINPIPE_CUDA_ARCHS "sm_90a" CACHE STRING "GPU arches the linpipe CUDA flavour is built for")
set(LINPIPE_CUDA_BMI_FLAGS "" CACHE STRING "Extra flags for linpipe's CUDA module interfaces")
option(LINPIPE_ENABLE_CUDA "Build linpipe's CUDA flavour when a toolkit is found" ON)

# Finds the toolkit at LINPIPE_CUDA_PATH if set, else $CUDA_PATH, else /usr/local/cuda (the path
# checked is the path used); sets LINPIPE_CUDA_FOUND and a reason. A LINPIPE_CUDA_PATH given
# explicitly that holds no toolkit stops the configure step with a sentence.
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
  if(found)  # remembered only once it holds a toolkit, so a later configure checks it again
    set(LINPIPE_CUDA_PATH "${path}" CACHE PATH "CUDA toolkit used by linpipe's CUDA flavour")
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

# The flags every CUDA compile in this flavour shares (BMIs and importers alike).
function(_linpipe_cuda_common_flags out arch)
  set(${out} -x cuda --cuda-path=${LINPIPE_CUDA_PATH} --cuda-gpu-arch=${arch}
      -Wno-unknown-cuda-version PARENT_SCOPE)
endfunction()

# Builds the BMIs of one side ("host" or an arch such as sm_90a) once per build tree;
# returns the folder they land in and the list of BMI files.
function(_linpipe_cuda_bmis side out_dir out_files)
  set(dir "${CMAKE_BINARY_DIR}/linpipe_bmi/cuda-${side}")
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
    if(side STREQUAL "host")
      list(GET LINPIPE_CUDA_ARCHS 0 arch)
      set(side_flag --cuda-host-only)
    else()
      set(arch ${side})
      set(side_flag --cuda-device-only)
    endif()
    _linpipe_cuda_common_flags(flags ${arch})
    # What CMake gives every CXX compile of this build, so BMI and importer agree.
    _linpipe_cuda_build_flags(build_flags)
    list(PREPEND flags ${LINPIPE_CUDA_STD} ${build_flags})
    if(NOT side STREQUAL "host")
      _linpipe_cuda_device_opt(device_opt)
      list(APPEND flags ${device_opt})
    endif()
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
      # -nocudainc: the driver's forced include would precede `module;`; each unit includes the
      # CUDA wrapper in its global module fragment instead.
      add_custom_command(
        OUTPUT "${pcm}"
        COMMAND "${CMAKE_COMMAND}" -E make_directory "${dir}"
        COMMAND "${CMAKE_CXX_COMPILER}" ${flags} -nocudainc -isystem "${LINPIPE_CUDA_PATH}/include"
                ${side_flag} "-fprebuilt-module-path=${dir}" -S -Xclang -emit-module-interface
                "${src}" -o "${pcm}"
        DEPENDS "${src}" "${LINPIPE_MODULE_SOURCE_DIR}/linpipe_macros.h" ${needs}
        COMMENT "linpipe: module interface ${name} (CUDA ${side})"
        VERBATIM)
      list(APPEND built "${pcm}")
    endforeach()
    add_custom_target(linpipe_cuda_bmis_${side} DEPENDS ${built})
    set_property(GLOBAL PROPERTY "_linpipe_bmis_${side}" TRUE)
  endif()
  set(${out_dir} "${dir}" PARENT_SCOPE)
  set(${out_files} "${files}" PARENT_SCOPE)
endfunction()

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
  set(archs ${arg_ARCHS})
  set(arch_source "ARCHS")
  if(NOT archs)
    set(archs ${LINPIPE_CUDA_ARCHS})
    set(arch_source "LINPIPE_CUDA_ARCHS")
  endif()
  foreach(arch IN LISTS archs)
    # The NVIDIA backend needs SM_90's mbarrier transaction counts, clusters and TMA.
    if(NOT arch MATCHES "^sm_(9[0-9]|1[0-9][0-9])a?$")
      message(FATAL_ERROR "linpipe_target_cuda_sources(${target}): ${arch_source} has '${arch}'; "
                          "linpipe's NVIDIA backend needs sm_90 or newer (write it as sm_90a for "
                          "Hopper's wgmma and setmaxnreg)")
    endif()
  endforeach()

  _linpipe_cuda_bmis(host host_dir host_bmis)
  list(GET archs 0 first_arch)
  _linpipe_cuda_common_flags(flags ${first_arch})
  list(REMOVE_ITEM flags --cuda-gpu-arch=${first_arch})
  set(depends ${host_bmis})
  set(module_flags -Xarch_host "-fprebuilt-module-path=${host_dir}")
  _linpipe_cuda_device_opt(device_opt)
  add_dependencies(${target} linpipe_cuda_bmis_host)
  foreach(arch IN LISTS archs)
    _linpipe_cuda_bmis(${arch} device_dir device_bmis)
    list(APPEND depends ${device_bmis})
    list(APPEND flags --cuda-gpu-arch=${arch})
    list(APPEND module_flags -Xarch_${arch} "-fprebuilt-module-path=${device_dir}")
    foreach(opt IN LISTS device_opt)
      list(APPEND module_flags -Xarch_${arch} ${opt})
    endforeach()
    add_dependencies(${target} linpipe_cuda_bmis_${arch})
  endforeach()
  # The headers the module units include, parsed before the source so that it may include
  # standard headers after `import linpipe;` (see linpipe_cuda_prelude.h for the clang issue).
  set(prelude "${LINPIPE_MODULE_SOURCE_DIR}/linpipe_cuda_prelude.h")
  list(APPEND depends "${prelude}")
  # CUDA's builtin-variable helpers are `static` in both the module and the importer: benign.
  list(APPEND flags ${module_flags} -include "${prelude}" -Wno-modules-ambiguous-internal-linkage
       "${LINPIPE_CONSUMED_AS_ERROR_FLAG}")

  target_sources(${target} PRIVATE ${arg_SOURCES})
  # Compiled as CXX so CMake drives clang, but never scanned: `import linpipe;` here resolves
  # to the CUDA BMIs above, not to the plain C++ flavour.
  set_source_files_properties(${arg_SOURCES} TARGET_DIRECTORY ${target} PROPERTIES
    LANGUAGE CXX
    CXX_SCAN_FOR_MODULES OFF
    COMPILE_OPTIONS "${flags}"
    OBJECT_DEPENDS "${depends}")
  target_compile_features(${target} PRIVATE cxx_std_20)
  set_target_properties(${target} PROPERTIES CXX_EXTENSIONS ${LINPIPE_CUDA_EXTENSIONS})
  target_link_libraries(${target} PRIVATE "${LINPIPE_CUDA_PATH}/lib64/libcudart_static.a" dl rt
                        Threads::Threads)
endfunction()

# A `.cu` file given to add_executable or target_sources in a project without the CUDA language
# is silently not compiled (CMake knows no language for it), which surfaces much later as an
# undefined symbol. At the end of the configure step, such a file in a target that links
# linpipe stops it with a sentence saying what to write instead.
function(_linpipe_check_cu_sources dir)
  get_property(enabled GLOBAL PROPERTY ENABLED_LANGUAGES)
  get_property(targets DIRECTORY "${dir}" PROPERTY BUILDSYSTEM_TARGETS)
  foreach(target IN LISTS targets)
    get_target_property(type ${target} TYPE)
    get_target_property(libs ${target} LINK_LIBRARIES)
    if(type STREQUAL "INTERFACE_LIBRARY" OR NOT libs MATCHES "linpipe")
      continue()
    endif()
    get_target_property(sources ${target} SOURCES)
    foreach(source IN LISTS sources)
      if(NOT source MATCHES "\\.cu$" OR "CUDA" IN_LIST enabled)
        continue()
      endif()
      get_source_file_property(language "${source}" TARGET_DIRECTORY ${target} LANGUAGE)
      if(NOT language)
        message(FATAL_ERROR "linpipe: target ${target} lists ${source}, which this project does not "
                            "compile (no CUDA language): add it with "
                            "linpipe_target_cuda_sources(${target} SOURCES ${source}) instead")
      endif()
    endforeach()
  endforeach()
  get_property(subdirs DIRECTORY "${dir}" PROPERTY SUBDIRECTORIES)
  foreach(subdir IN LISTS subdirs)
    _linpipe_check_cu_sources("${subdir}")
  endforeach()
endfunction()
cmake_language(DEFER DIRECTORY "${CMAKE_SOURCE_DIR}" CALL _linpipe_check_cu_sources
               "${CMAKE_SOURCE_DIR}")

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
