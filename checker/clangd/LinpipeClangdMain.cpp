//===--- LinpipeClangdMain.cpp - clangd with the linpipe checks linked in --===//
//
// clangd-22 cannot load clang-tidy plugins, so this executable is clangd itself (Debian's static
// clangd libraries) with the linpipe check sources compiled in. The checks register through the
// ClangTidyModuleRegistry::Add static in ../LinpipeTidyModule.cpp; that file is compiled into this
// executable as an object file (not pulled from an archive), so the linker keeps the registrar
// without an anchor symbol.
//
// clangd locates the compiler's resource directory (builtin headers, CUDA wrappers) relative to its
// own executable. This one does not live next to clang, so the resource directory of the clang it
// was built against is passed unless the caller gives one.
//
//===----------------------------------------------------------------------===//

#include <cstdio>
#include <cstring>
#include <vector>

#ifndef LINPIPE_CLANGD_RESOURCE_DIR
#error "LINPIPE_CLANGD_RESOURCE_DIR must name clang's resource directory"
#endif
#ifndef LINPIPE_VERSION
#error "LINPIPE_VERSION must name linpipe's version"
#endif

namespace clang::clangd {
int clangdMain(int argc, char *argv[]); // libclangdMain.a (clangd/tool/ClangdMain.cpp)
} // namespace clang::clangd

int main(int argc, char *argv[]) {
  std::vector<char *> args(argv, argv + argc);
  bool hasResourceDir = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--resource-dir", 14) == 0 ||
        std::strncmp(argv[i], "-resource-dir", 13) == 0)
      hasResourceDir = true;
    // clangd's own version printer follows (and exits): say first which clangd this is.
    if (std::strcmp(argv[i], "--version") == 0 || std::strcmp(argv[i], "-version") == 0) {
      std::printf("linpipe-clangd %s: clangd with the linpipe-linear-stage and "
                  "linpipe-stage-protocol checks linked in\n",
                  LINPIPE_VERSION);
      std::fflush(stdout);  // before clangd's own lines, which bypass stdio
    }
  }
  static char resourceDirArg[] = "--resource-dir=" LINPIPE_CLANGD_RESOURCE_DIR;
  if (!hasResourceDir)
    args.insert(args.begin() + 1, resourceDirArg);
  args.push_back(nullptr);
  return clang::clangd::clangdMain(static_cast<int>(args.size()) - 1, args.data());
}
