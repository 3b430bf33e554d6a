# Installs linpipe as a CMake package: find_package(linpipe CONFIG REQUIRED), then
# target_link_libraries(app PRIVATE linpipe::linpipe) for `import linpipe;` in C++ sources and
# target_link_libraries(app PRIVATE linpipe::cuda) for clang CUDA (.cu) sources.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(LINPIPE_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/linpipe")
set(LINPIPE_INSTALL_MODULEDIR "${CMAKE_INSTALL_LIBDIR}/linpipe/modules")
set(LINPIPE_INSTALL_TOOLDIR "${CMAKE_INSTALL_LIBDIR}/linpipe")
set(LINPIPE_INSTALL_PLUGIN "${LINPIPE_INSTALL_TOOLDIR}/liblinpipe_tidy.so")

install(TARGETS linpipe EXPORT linpipe-targets
  ARCHIVE DESTINATION "${CMAKE_INSTALL_LIBDIR}"
  FILE_SET CXX_MODULES DESTINATION "${LINPIPE_INSTALL_MODULEDIR}"
  FILE_SET HEADERS DESTINATION "${LINPIPE_INSTALL_MODULEDIR}")
install(EXPORT linpipe-targets NAMESPACE linpipe:: DESTINATION "${LINPIPE_INSTALL_CMAKEDIR}"
  CXX_MODULES_DIRECTORY cxx-modules)

configure_package_config_file(cmake/linpipe-config.cmake.in
  "${PROJECT_BINARY_DIR}/linpipe-config.cmake"
  INSTALL_DESTINATION "${LINPIPE_INSTALL_CMAKEDIR}"
  PATH_VARS LINPIPE_INSTALL_MODULEDIR LINPIPE_INSTALL_PLUGIN LINPIPE_INSTALL_TOOLDIR)
write_basic_package_version_file("${PROJECT_BINARY_DIR}/linpipe-config-version.cmake"
  COMPATIBILITY SameMajorVersion)
install(FILES
  "${PROJECT_BINARY_DIR}/linpipe-config.cmake"
  "${PROJECT_BINARY_DIR}/linpipe-config-version.cmake"
  cmake/LinpipeCuda.cmake
  cmake/LinpipeBmiStep.cmake
  cmake/linpipe_cuda_flags.json
  cmake/LinpipeModuleUnits.cmake
  cmake/LinpipeLint.cmake
  DESTINATION "${LINPIPE_INSTALL_CMAKEDIR}")

# The checker: the plugin and linpipe-tidy side by side (the tool finds the plugin, the module
# sources and the partition list next to itself), and linpipe-tidy on the PATH.
if(TARGET linpipe_tidy)
  install(TARGETS linpipe_tidy LIBRARY DESTINATION "${LINPIPE_INSTALL_TOOLDIR}")
  install(PROGRAMS checker/tools/linpipe-tidy DESTINATION "${LINPIPE_INSTALL_TOOLDIR}")
  install(FILES cmake/LinpipeModuleUnits.cmake cmake/linpipe_cuda_flags.json
          DESTINATION "${LINPIPE_INSTALL_TOOLDIR}")
  if(TARGET linpipe-clangd)
    install(TARGETS linpipe-clangd RUNTIME DESTINATION "${CMAKE_INSTALL_BINDIR}")
  endif()
  # The checks' pages: linpipe-clangd links each finding to its page here.
  install(DIRECTORY checker/docs/ DESTINATION "${CMAKE_INSTALL_DATADIR}/doc/linpipe/checks"
          FILES_MATCHING PATTERN "*.md")
  install(CODE "file(MAKE_DIRECTORY \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_BINDIR}\")
    file(CREATE_LINK \"../${LINPIPE_INSTALL_TOOLDIR}/linpipe-tidy\"
         \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_BINDIR}/linpipe-tidy\" SYMBOLIC)")
endif()
# The CUDA flavour compiles the module sources in the user's build: ship them next to the BMIs'
# sources (FILE_SET above) — nothing more to install for it.
