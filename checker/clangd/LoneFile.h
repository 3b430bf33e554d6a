//===--- LoneFile.h - linpipe-clangd --------------------------------------===//
//
// A lone file: one clangd would open without compile commands (no compile_commands.json or
// compile_flags.txt in its folder, a parent, or a build/ folder of either). clangd would parse
// it as `clang FILE`, and `import linpipe;` would not resolve. linpipe-tidy knows the flags that
// make it resolve (it builds the module's interfaces into its cache once); this asks it.
//
//===----------------------------------------------------------------------===//

#ifndef LINPIPE_CLANGD_LONEFILE_H
#define LINPIPE_CLANGD_LONEFILE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <string>
#include <vector>

namespace linpipe::clangd {

/// The compile commands clangd finds for \p File by itself, looking where it looks: the nearest
/// folder up the tree with a compile_commands.json (there or in its build/) or a
/// compile_flags.txt; that file's path, or empty.
std::string nearestCompileCommands(llvm::StringRef File);

/// Whether clangd finds compile commands for \p File by itself, or a project .clangd up the
/// tree names a compilation database.
bool hasCompileCommands(llvm::StringRef File);

/// Whether \p Source has an `import linpipe;` line.
bool importsLinpipe(llvm::StringRef Source);

/// The linpipe-tidy this executable uses: $LINPIPE_TIDY, else the one beside it (installed
/// layout), else the source tree's.
std::string linpipeTidyPath(const char *Argv0);

/// The command (compiler first, file last) linpipe-tidy analyses the lone \p File with.
llvm::Expected<std::vector<std::string>> loneFileCommand(llvm::StringRef Tool,
                                                         llvm::StringRef File);

} // namespace linpipe::clangd

#endif // LINPIPE_CLANGD_LONEFILE_H
