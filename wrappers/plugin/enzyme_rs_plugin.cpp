// enzyme-rs plugin for clang 22, loaded by enzyme-cc / enzyme-c++ on every
// compile step (as -fplugin= and -fpass-plugin=). Two jobs:
//
// 1. Attributes. clang does not know Enzyme's attributes and would drop
//    them with a warning, leaving a program that builds and computes a
//    wrong derivative. Registered here in all their spellings
//    (__attribute__((enzyme_inactive)), [[enzyme::inactive]], ...) and
//    lowered to annotate("enzyme_...") annotations, which clang records in
//    llvm.global.annotations for definitions and declarations alike; the AD
//    engine reads them there (ad/src/registry.rs) and refuses what it does
//    not implement.
//
// 2. Out of line until differentiation. Functions named by Enzyme's
//    registration globals (__enzyme_inactivefn, __enzyme_function_like, ...)
//    or annotations must reach the AD engine as calls; the compile step's own
//    optimiser would inline them first. A pass at the start of the pipeline
//    marks them noinline and tags them, so the engine can undo it once
//    derivatives are made.
//
// 3. Reads of inactive globals stay reads. A global registered inactive
//    (__enzyme_inactive_global, the enzyme_inactive attribute on a variable)
//    carries no derivative; but the compile step's optimiser forwards a value
//    stored into it to the loads after it (`g = x * x; return g * x;`), and
//    the engine would then see the derivative flow through the stored value.
//    The same pass puts a call of a stop-gradient helper after each float
//    load through such a global (the engine's ad/src/inactive_reads.rs does
//    the same at link time, under the same names, for what is left), which
//    the engine takes as inactive and removes once derivatives are made.
//
// Nothing else lives here: everything about derivatives is in the engine.

#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/Decl.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/Expr.h"
#include "clang/AST/GlobalDecl.h"
#include "clang/AST/Mangle.h"
#include "clang/Basic/DiagnosticSema.h"
#include "clang/Basic/ParsedAttrInfo.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/FrontendPluginRegistry.h"
#include "clang/Sema/ParsedAttr.h"
#include "clang/Sema/Sema.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/PassManager.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Plugins/PassPlugin.h"

using namespace clang;

namespace {

// ---------------------------------------------------------------- attributes

// Which declarations an attribute fits.
enum class Fits { Functions, FunctionsAndVariables, Variables };

bool fits(const Decl *D, Fits F) {
  bool Fn = isa<FunctionDecl>(D) || isa<FunctionTemplateDecl>(D);
  bool Var = isa<VarDecl>(D) && cast<VarDecl>(D)->hasGlobalStorage();
  switch (F) {
  case Fits::Functions:
    return Fn;
  case Fits::FunctionsAndVariables:
    return Fn || Var;
  case Fits::Variables:
    return Var;
  }
  return false;
}

const char *fitsText(Fits F) {
  switch (F) {
  case Fits::Functions:
    return "functions";
  case Fits::FunctionsAndVariables:
    return "functions and global or static variables";
  case Fits::Variables:
    return "global or static variables";
  }
  return "";
}

void annotate(Sema &S, Decl *D, const ParsedAttr &A, llvm::StringRef Text) {
  if (auto *T = dyn_cast<FunctionTemplateDecl>(D))
    D = T->getTemplatedDecl();
  D->addAttr(AnnotateAttr::Create(S.Context, Text, nullptr, 0, A.getRange()));
}

// clang skips the arguments of [[scope::name(...)]] plugin attributes: the
// text between the parentheses, read back from the source (one line).
std::string skippedArgument(Sema &S, const ParsedAttr &A) {
  bool Invalid = false;
  const char *P = S.getSourceManager().getCharacterData(A.getLoc(), &Invalid);
  if (Invalid || !P)
    return "";
  llvm::StringRef Rest(P, 256);
  Rest = Rest.take_until([](char C) { return C == '\n' || C == 0; });
  auto Open = Rest.find('('), Close = Rest.find(')');
  if (Open == llvm::StringRef::npos || Close == llvm::StringRef::npos || Close <= Open + 1)
    return "";
  return Rest.substr(Open + 1, Close - Open - 1).trim().str();
}

// One Enzyme attribute: its spellings, what it fits, how many arguments.
struct EnzymeAttr : public ParsedAttrInfo {
  Fits Where;
  std::string Annotation;

  EnzymeAttr(llvm::ArrayRef<Spelling> S, Fits W, const char *Ann, unsigned Args)
      : Where(W), Annotation(Ann) {
    Spellings = S;
    // Optional as far as clang's parser goes (it parses the arguments of
    // [[ns::name(...)]] plugin attributes only then); counted when handled.
    OptArgs = Args;
  }

  bool diagAppertainsToDecl(Sema &S, const ParsedAttr &A,
                            const Decl *D) const override {
    if (fits(D, Where))
      return true;
    S.Diag(A.getLoc(), diag::warn_attribute_wrong_decl_type_str)
        << A << A.isRegularKeywordAttribute() << fitsText(Where);
    return false;
  }

  AttrHandling handleDeclAttribute(Sema &S, Decl *D,
                                   const ParsedAttr &A) const override {
    annotate(S, D, A, Annotation);
    return AttributeApplied;
  }
};

constexpr ParsedAttrInfo::Spelling InactiveSpellings[] = {
    {AttributeCommonInfo::AS_GNU, "enzyme_inactive"},
    {AttributeCommonInfo::AS_CXX11, "enzyme::inactive"},
    {AttributeCommonInfo::AS_C23, "enzyme::inactive"}};
constexpr ParsedAttrInfo::Spelling NoFreeSpellings[] = {
    {AttributeCommonInfo::AS_GNU, "enzyme_nofree"},
    {AttributeCommonInfo::AS_CXX11, "enzyme::nofree"},
    {AttributeCommonInfo::AS_C23, "enzyme::nofree"}};
constexpr ParsedAttrInfo::Spelling ShadowSpellings[] = {
    {AttributeCommonInfo::AS_GNU, "enzyme_shadow"},
    {AttributeCommonInfo::AS_CXX11, "enzyme::shadow"},
    {AttributeCommonInfo::AS_C23, "enzyme::shadow"}};
constexpr ParsedAttrInfo::Spelling SparseSpellings[] = {
    {AttributeCommonInfo::AS_GNU, "enzyme_sparse_accumulate"},
    {AttributeCommonInfo::AS_CXX11, "enzyme::sparse_accumulate"},
    {AttributeCommonInfo::AS_C23, "enzyme::sparse_accumulate"}};
constexpr ParsedAttrInfo::Spelling FunctionLikeSpellings[] = {
    {AttributeCommonInfo::AS_GNU, "enzyme_function_like"},
    {AttributeCommonInfo::AS_CXX11, "enzyme::function_like"},
    {AttributeCommonInfo::AS_C23, "enzyme::function_like"}};

struct InactiveAttr : EnzymeAttr {
  InactiveAttr()
      : EnzymeAttr(InactiveSpellings, Fits::FunctionsAndVariables,
                   "enzyme_inactive", 0) {}
};
struct NoFreeAttr : EnzymeAttr {
  NoFreeAttr()
      : EnzymeAttr(NoFreeSpellings, Fits::Functions, "enzyme_nofree", 0) {}
};
// enzyme_shadow(dg) on a global g: dg is g's shadow (the user's, not made
// or zeroed by the engine). Lowered to "enzyme_shadow=<dg's symbol>".
struct ShadowAttr : EnzymeAttr {
  ShadowAttr()
      : EnzymeAttr(ShadowSpellings, Fits::Variables, "enzyme_shadow", 1) {}

  AttrHandling handleDeclAttribute(Sema &S, Decl *D,
                                   const ParsedAttr &A) const override {
    const VarDecl *Shadow = nullptr;
    auto byName = [&](llvm::StringRef Name) {
      for (DeclContext *DC = D->getDeclContext(); DC && !Shadow; DC = DC->getParent())
        for (auto *Cand : DC->lookup(&S.Context.Idents.get(Name)))
          if ((Shadow = dyn_cast<VarDecl>(Cand)))
            break;
    };
    if (A.getNumArgs() == 1 && A.isArgExpr(0)) {
      if (auto *Ref = dyn_cast<DeclRefExpr>(A.getArgAsExpr(0)->IgnoreParenImpCasts()))
        Shadow = dyn_cast<VarDecl>(Ref->getDecl());
    } else if (A.getNumArgs() == 1 && A.isArgIdent(0)) {
      byName(A.getArgAsIdent(0)->getIdentifierInfo()->getName());
    }
    if (!Shadow && A.getNumArgs() == 0) {
      // [[enzyme::shadow(dg)]]: clang skipped the argument; find it by name.
      std::string Name = skippedArgument(S, A);
      if (!Name.empty())
        byName(Name);
    }
    if (!Shadow || !Shadow->hasGlobalStorage()) {
      unsigned Id = S.getDiagnostics().getCustomDiagID(
          DiagnosticsEngine::Error,
          "'enzyme_shadow' takes the global variable that holds the shadow, "
          "e.g. enzyme_shadow(dg)");
      S.Diag(A.getLoc(), Id);
      return AttributeNotApplied;
    }
    std::string Symbol;
    std::unique_ptr<MangleContext> MC(S.Context.createMangleContext());
    if (MC->shouldMangleDeclName(Shadow)) {
      llvm::raw_string_ostream OS(Symbol);
      MC->mangleName(GlobalDecl(Shadow), OS);
    } else {
      Symbol = Shadow->getName().str();
    }
    annotate(S, D, A, "enzyme_shadow=" + Symbol);
    return AttributeApplied;
  }
};
// For Enzyme's automatic sparsification, which enzyme-rs does not do: the
// engine accepts the annotation, and the calls run as written.
struct SparseAttr : EnzymeAttr {
  SparseAttr()
      : EnzymeAttr(SparseSpellings, Fits::Functions,
                   "enzyme_sparse_accumulate", 0) {}
};

// enzyme_function_like("exp"): the function is differentiated as `exp`.
struct FunctionLikeAttr : EnzymeAttr {
  FunctionLikeAttr()
      : EnzymeAttr(FunctionLikeSpellings, Fits::Functions,
                   "enzyme_function_like", 1) {}

  AttrHandling handleDeclAttribute(Sema &S, Decl *D,
                                   const ParsedAttr &A) const override {
    auto *Arg = A.getNumArgs() == 1 && A.isArgExpr(0) ? A.getArgAsExpr(0)
                                                       : nullptr;
    auto *Lit = Arg ? dyn_cast<StringLiteral>(Arg->IgnoreParenCasts()) : nullptr;
    std::string Name = Lit ? Lit->getString().str() : "";
    if (!Lit && A.getNumArgs() == 0) {
      // [[enzyme::function_like("exp")]]: the string literal, unquoted.
      std::string Arg = skippedArgument(S, A);
      if (Arg.size() > 2 && Arg.front() == '"' && Arg.back() == '"')
        Name = Arg.substr(1, Arg.size() - 2);
    }
    if (Name.empty()) {
      unsigned Id = S.getDiagnostics().getCustomDiagID(
          DiagnosticsEngine::Error,
          "'enzyme_function_like' takes the name of a math function as a "
          "string literal, e.g. enzyme_function_like(\"exp\")");
      S.Diag(A.getLoc(), Id);
      return AttributeNotApplied;
    }
    annotate(S, D, A, "enzyme_function_like=" + Name);
    return AttributeApplied;
  }
};

ParsedAttrInfoRegistry::Add<InactiveAttr> RegInactive("enzyme_inactive", "");
ParsedAttrInfoRegistry::Add<NoFreeAttr> RegNoFree("enzyme_nofree", "");
ParsedAttrInfoRegistry::Add<ShadowAttr> RegShadow("enzyme_shadow", "");
ParsedAttrInfoRegistry::Add<SparseAttr> RegSparse("enzyme_sparse_accumulate", "");
ParsedAttrInfoRegistry::Add<FunctionLikeAttr> RegLike("enzyme_function_like", "");

// Attributes spelled like Enzyme's that are not registered above: clang
// would warn "unknown attribute ignored" and build on. The warning is kept
// and an error follows it (reported when the file is done, so it counts).
class UnknownEnzymeAttributes : public DiagnosticConsumer {
public:
  UnknownEnzymeAttributes(DiagnosticsEngine &D,
                          std::unique_ptr<DiagnosticConsumer> Inner)
      : Diags(D), Inner(std::move(Inner)) {}

  void BeginSourceFile(const LangOptions &LO, const Preprocessor *PP) override {
    Inner->BeginSourceFile(LO, PP);
  }
  void EndSourceFile() override { Inner->EndSourceFile(); }
  void finish() override { Inner->finish(); }
  void clear() override {
    Inner->clear();
    DiagnosticConsumer::clear();
  }
  bool IncludeInDiagnosticCounts() const override {
    return Inner->IncludeInDiagnosticCounts();
  }

  void HandleDiagnostic(DiagnosticsEngine::Level L,
                        const Diagnostic &Info) override {
    DiagnosticConsumer::HandleDiagnostic(L, Info);
    Inner->HandleDiagnostic(L, Info);
    if (L != DiagnosticsEngine::Warning && L != DiagnosticsEngine::Remark &&
        L != DiagnosticsEngine::Ignored)
      return;
    if (Info.getID() != diag::warn_unknown_attribute_ignored &&
        Info.getID() != diag::warn_attribute_ignored)
      return;
    llvm::SmallString<128> Text;
    Info.FormatDiagnostic(Text);
    // The attribute's name is the first quoted word of the warning.
    llvm::StringRef Name = llvm::StringRef(Text).split('\'').second.split('\'').first;
    if (Name.starts_with("enzyme_") || Name.starts_with("enzyme::"))
      Pending.push_back({Info.getLocation(), Name.str()});
  }

  // Reports the collected attributes as errors.
  void report() {
    unsigned Id = Diags.getCustomDiagID(
        DiagnosticsEngine::Error,
        "attribute '%0' is not implemented by enzyme-rs; building without it "
        "would give a wrong derivative (implemented: enzyme_inactive, "
        "enzyme_function_like, enzyme_nofree)");
    auto Todo = std::move(Pending);
    Pending.clear();
    for (auto &P : Todo)
      Diags.Report(P.first, Id) << P.second;
  }

private:
  DiagnosticsEngine &Diags;
  std::unique_ptr<DiagnosticConsumer> Inner;
  std::vector<std::pair<SourceLocation, std::string>> Pending;
};

class ReportAtEnd : public ASTConsumer {
public:
  explicit ReportAtEnd(UnknownEnzymeAttributes *U) : U(U) {}
  void HandleTranslationUnit(ASTContext &) override {
    if (U)
      U->report();
  }

private:
  UnknownEnzymeAttributes *U;
};

class EnzymeAction : public PluginASTAction {
protected:
  std::unique_ptr<ASTConsumer> CreateASTConsumer(CompilerInstance &CI,
                                                 llvm::StringRef) override {
    DiagnosticsEngine &D = CI.getDiagnostics();
    UnknownEnzymeAttributes *U = nullptr;
    if (D.ownsClient()) {
      auto W = std::make_unique<UnknownEnzymeAttributes>(D, D.takeClient());
      U = W.get();
      D.setClient(W.release(), /*ShouldOwnClient=*/true);
    }
    return std::make_unique<ReportAtEnd>(U);
  }
  bool ParseArgs(const CompilerInstance &,
                 const std::vector<std::string> &) override {
    return true;
  }
  ActionType getActionType() override { return AddBeforeMainAction; }
};

FrontendPluginRegistry::Add<EnzymeAction> RegAction("enzyme-rs",
                                                     "Enzyme's attributes");

// ------------------------------------------------------ out of line until AD

const char *HeldTag = "enzyme-rs.held-out-of-line";

void hold(llvm::Function *F) {
  if (F->isDeclaration() || F->hasFnAttribute(llvm::Attribute::NoInline))
    return;
  F->removeFnAttr(llvm::Attribute::AlwaysInline);
  F->addFnAttr(llvm::Attribute::NoInline);
  F->addFnAttr(HeldTag);
}

// Every function a constant refers to (through casts and aggregates).
void holdFunctionsIn(llvm::Constant *C, unsigned Depth = 0) {
  if (!C || Depth > 8)
    return;
  if (auto *F = llvm::dyn_cast<llvm::Function>(C->stripPointerCasts())) {
    hold(F);
    return;
  }
  if (llvm::isa<llvm::ConstantAggregate>(C))
    for (llvm::Value *Op : C->operands())
      holdFunctionsIn(llvm::cast<llvm::Constant>(Op), Depth + 1);
}

// Each (annotated value, annotation text) of the module's
// llvm.global.annotations, where the text is a C string.
template <typename Fn> void forEachAnnotation(llvm::Module &M, Fn Visit) {
  auto *A = M.getGlobalVariable("llvm.global.annotations");
  auto *Arr = A && A->hasInitializer()
                  ? llvm::dyn_cast<llvm::ConstantArray>(A->getInitializer())
                  : nullptr;
  if (!Arr)
    return;
  for (llvm::Value *E : Arr->operands()) {
    auto *S = llvm::dyn_cast<llvm::ConstantStruct>(E);
    if (!S || S->getNumOperands() < 2)
      continue;
    auto *Str = llvm::dyn_cast<llvm::GlobalVariable>(S->getOperand(1)->stripPointerCasts());
    auto *Data = Str && Str->hasInitializer()
                     ? llvm::dyn_cast<llvm::ConstantDataSequential>(Str->getInitializer())
                     : nullptr;
    if (Data && Data->isCString())
      Visit(S->getOperand(0), Data->getAsCString());
  }
}

// ---------------------------------------------- reads of inactive globals

// The variable a constant address points into (through casts and constant
// address arithmetic).
llvm::GlobalVariable *rootGlobal(llvm::Value *V) {
  return llvm::dyn_cast<llvm::GlobalVariable>(
      V->stripPointerCastsAndAliases()->stripInBoundsOffsets());
}

bool carriesFloat(llvm::Type *T) {
  if (T->isFPOrFPVectorTy())
    return true;
  if (auto *S = llvm::dyn_cast<llvm::StructType>(T)) {
    for (llvm::Type *E : S->elements())
      if (carriesFloat(E))
        return true;
    return false;
  }
  if (auto *A = llvm::dyn_cast<llvm::ArrayType>(T))
    return carriesFloat(A->getElementType());
  return false;
}

// `T __enzyme_ignore_derivatives.<T>(T)`: no memory, no side effects, so it
// blocks no optimisation; only its result is opaque. Named as the engine
// names it (the type as printed, other characters `_`).
llvm::FunctionCallee stopGradient(llvm::Module &M, llvm::Type *T) {
  std::string Tag;
  llvm::raw_string_ostream OS(Tag);
  T->print(OS);
  OS.flush();
  for (char &C : Tag)
    if (!llvm::isAlnum(C))
      C = '_';
  llvm::FunctionType *FT = llvm::FunctionType::get(T, {T}, false);
  llvm::FunctionCallee Callee =
      M.getOrInsertFunction("__enzyme_ignore_derivatives." + Tag, FT);
  if (auto *F = llvm::dyn_cast<llvm::Function>(Callee.getCallee())) {
    F->setDoesNotAccessMemory();
    F->setDoesNotThrow();
    F->setWillReturn();
    F->setNoSync();
    F->setDoesNotFreeMemory();
  }
  return Callee;
}

void cutReads(llvm::GlobalVariable *G) {
  llvm::SmallVector<llvm::Value *, 8> Work{G};
  llvm::SmallPtrSet<llvm::Value *, 16> Seen;
  llvm::SmallVector<llvm::LoadInst *, 8> Loads;
  while (!Work.empty()) {
    llvm::Value *P = Work.pop_back_val();
    if (!Seen.insert(P).second)
      continue;
    for (llvm::User *U : P->users()) {
      if (llvm::isa<llvm::ConstantExpr>(U) || llvm::isa<llvm::GetElementPtrInst>(U) ||
          llvm::isa<llvm::BitCastInst>(U) || llvm::isa<llvm::AddrSpaceCastInst>(U)) {
        if (U->getOperand(0) == P)
          Work.push_back(U);
      } else if (auto *L = llvm::dyn_cast<llvm::LoadInst>(U)) {
        if (carriesFloat(L->getType()) && !L->use_empty())
          Loads.push_back(L);
      }
    }
  }
  for (llvm::LoadInst *L : Loads) {
    llvm::Module &M = *L->getModule();
    llvm::FunctionCallee Stop = stopGradient(M, L->getType());
    if (L->hasOneUse())
      if (auto *C = llvm::dyn_cast<llvm::CallInst>(*L->user_begin()))
        if (C->getCalledOperand() == Stop.getCallee())
          continue;
    auto *Call = llvm::CallInst::Create(Stop, {L});
    Call->insertAfter(L->getIterator());
    L->replaceUsesWithIf(Call, [Call](llvm::Use &Use) { return Use.getUser() != Call; });
  }
}

// The globals registered inactive: listed in __enzyme_inactive_global*, or
// annotated enzyme_inactive.
void cutReadsOfInactiveGlobals(llvm::Module &M) {
  llvm::SmallPtrSet<llvm::GlobalVariable *, 8> Inactive;
  for (llvm::GlobalVariable &G : M.globals()) {
    if (!G.getName().starts_with("__enzyme_inactive_global") || !G.hasInitializer())
      continue;
    llvm::Constant *Init = G.getInitializer();
    if (llvm::isa<llvm::ConstantAggregate>(Init)) {
      for (llvm::Value *Op : Init->operands())
        if (auto *V = rootGlobal(Op))
          Inactive.insert(V);
    } else if (auto *V = rootGlobal(Init)) {
      Inactive.insert(V);
    }
  }
  forEachAnnotation(M, [&](llvm::Value *Target, llvm::StringRef Text) {
    if (Text == "enzyme_inactive")
      if (auto *V = rootGlobal(Target))
        Inactive.insert(V);
  });
  for (llvm::GlobalVariable *G : Inactive)
    cutReads(G);
}

struct HoldRegisteredFunctions
    : llvm::PassInfoMixin<HoldRegisteredFunctions> {
  llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &) {
    cutReadsOfInactiveGlobals(M);
    for (llvm::GlobalVariable &G : M.globals()) {
      if (G.getName().starts_with("__enzyme_") && G.hasInitializer())
        holdFunctionsIn(G.getInitializer());
    }
    forEachAnnotation(M, [](llvm::Value *Target, llvm::StringRef Text) {
      if (Text.starts_with("enzyme_"))
        holdFunctionsIn(llvm::cast<llvm::Constant>(Target));
    });
    return llvm::PreservedAnalyses::none();
  }
};

} // namespace

extern "C" LLVM_ATTRIBUTE_WEAK ::llvm::PassPluginLibraryInfo
llvmGetPassPluginInfo() {
  return {LLVM_PLUGIN_API_VERSION, "enzyme-rs", "1",
          [](llvm::PassBuilder &PB) {
            PB.registerPipelineStartEPCallback(
                [](llvm::ModulePassManager &MPM, llvm::OptimizationLevel) {
                  MPM.addPass(HoldRegisteredFunctions());
                });
          }};
}
