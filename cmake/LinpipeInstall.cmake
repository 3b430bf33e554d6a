# Installs linpipe as a CMake package: find_package(linpipe CONFIG REQUIRED), then
# target_link_libraries(app PRIVATE linpipe::linpipe) for `import linpipe;` in C++ sources and
# linpipe_target_cuda_sources(app SOURCES k.cu) for clang CUDA sources.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(LINPIPE_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/linpipe")
set(LINPIPE_INSTALL_MODULEDIR "${CMAKE_INSTALL_LIBDIR}/linpipe/modules")
set(LINPIPE_INSTALL_PLUGIN "${CMAKE_INSTALL_LIBDIR}/linpipe/liblinpipe_tidy.so")

install(TARGETS linpipe EXPORT linpipe-targets
  ARCHIVE DESTINATION "${CMAKE_INSTALL_LIBDIR}"
  FILE_SET CXX_MODULES DESTINATION "${LINPIPE_INSTALL_MODULEDIR}"
  FILE_SET HEADERS DESTINATION "${LINPIPE_INSTALL_MODULEDIR}")
install(EXPORT linpipe-targets NAMESPACE linpipe:: DESTINATION "${LINPIPE_INSTALL_CMAKEDIR}"
  CXX_MODULES_DIRECTORY cxx-modules)

configure_package_config_file(cmake/linpipe-config.cmake.in
  "${PROJECT_BINARY_DIR}/linpipe-config.cmake"
  INSTALL_DESTINATION "${LINPIPE_INSTALL_CMAKEDIR}"
  PATH_VARS LINPIPE_INSTALL_MODULEDIR LINPIPE_INSTALL_PLUGIN)
write_basic_package_version_file("${PROJECT_BINARY_DIR}/linpipe-config-version.cmake"
  COMPATIBILITY SameMajorVersion)
install(FILES
  "${PROJECT_BINARY_DIR}/linpipe-config.cmake"
  "${PROJECT_BINARY_DIR}/linpipe-config-version.cmake"
  cmake/LinpipeCuda.cmake
  cmake/LinpipeModuleUnits.cmake
  DESTINATION "${LINPIPE_INSTALL_CMAKEDIR}")
# The CUDA flavour compiles the module sources in the user's build: ship them next to the BMIs'
# sources (FILE_SET above) — nothing more to install for it.
