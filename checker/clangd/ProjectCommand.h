//===--- ProjectCommand.h - linpipe-clangd --------------------------------===//
//
// A file in a configured project: the compile command its build gives it (an exact entry in the
// compile_commands.json clangd uses, not one clangd guesses from a neighbour), and the module
// files that command reads. Before the project's first build those files do not exist and clangd
// reports "Module 'linpipe' not found"; it never looks again by itself.
//
//===----------------------------------------------------------------------===//

#ifndef LINPIPE_CLANGD_PROJECTCOMMAND_H
#define LINPIPE_CLANGD_PROJECTCOMMAND_H

#include "llvm/ADT/StringRef.h"
#include <optional>
#include <string>
#include <vector>

namespace linpipe::clangd {

struct ProjectCommand {
  std::string Directory;
  std::vector<std::string> Arguments;
};

/// \p File's own command in the project: its entry in the compile_commands.json clangd reads
/// for it (the one in \p DatabaseDir when given, --compile-commands-dir, else the nearest up the
/// tree or in a build/ folder there), or the nearest compile_flags.txt's flags. None if there is
/// neither, or the database has no entry for the file.
std::optional<ProjectCommand> projectCommand(llvm::StringRef File, llvm::StringRef DatabaseDir);

/// The files whose appearance or change can make \p Command's imports resolve: response files
/// (CMake's .modmap), the -fmodule-file= interfaces they and the command name, and linpipe.pcm in
/// each -fprebuilt-module-path folder. Absolute paths.
std::vector<std::string> moduleInputs(const ProjectCommand &Command);

/// A fingerprint of \p Paths: which exist and when each was last written.
std::string fingerprint(const std::vector<std::string> &Paths);

} // namespace linpipe::clangd

#endif // LINPIPE_CLANGD_PROJECTCOMMAND_H
