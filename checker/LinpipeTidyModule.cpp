//===--- LinpipeTidyModule.cpp - linpipe clang-tidy checks ----------------===//
//
// The plugin's entry point: registers the "linpipe" module with clang-tidy.
//   clang-tidy-22 -load=liblinpipe_tidy.so -checks='-*,linpipe-*' file.cpp -- <flags>
//
//===----------------------------------------------------------------------===//

#include "ClangTidyModule.h"
#include "LinearStageCheck.h"
#include "StageProtocolCheck.h"

namespace linpipe::tidy {

class LinpipeTidyModule : public clang::tidy::ClangTidyModule {
public:
  void addCheckFactories(clang::tidy::ClangTidyCheckFactories &Factories) override {
    Factories.registerCheck<LinearStageCheck>("linpipe-linear-stage");
    Factories.registerCheck<StageProtocolCheck>("linpipe-stage-protocol");
  }
};

// Registered when clang-tidy loads the plugin (-load).
static clang::tidy::ClangTidyModuleRegistry::Add<LinpipeTidyModule>
    Registration("linpipe-module", "Linearity and barrier-protocol checks for linpipe stages.");

} // namespace linpipe::tidy
