#include "codegen/mc/expansion_budget.hpp"

#include <fmt/format.h>
#include <llvm/MC/MCParser/AsmLexer.h>
#include <llvm/MC/MCExpr.h>
#include <llvm/MC/MCParser/MCAsmParserExtension.h>
#include <llvm/MC/MCSymbol.h>

#include <algorithm>
#include <functional>
#include <optional>
#include <string_view>
#include <vector>

#include "cdna4/error.hpp"
#include "codegen/mc/assembly_session.hpp"

namespace cdna4::codegen {
namespace {

uint64_t saturating_mul(uint64_t a, uint64_t b) { return b && a > UINT64_MAX / b ? UINT64_MAX : a * b; }

// Directive handlers for the counting pass. A repeated body is parsed once,
// with the product of the enclosing counts as its weight.
class ExpansionBudget : public llvm::MCAsmParserExtension {
 public:
  explicit ExpansionBudget(const TextAssemblyOptions& options) : options_(options) {}

  void Initialize(llvm::MCAsmParser& parser) override {
    MCAsmParserExtension::Initialize(parser);
    for (const char* d : {".rept", ".rep"}) parser.addDirectiveHandler(d, {this, handler<&ExpansionBudget::repeat>});
    for (const char* d : {".irp", ".irpc"}) parser.addDirectiveHandler(d, {this, handler<&ExpansionBudget::irp>});
    parser.addDirectiveHandler(".endr", {this, handler<&ExpansionBudget::end_repeat>});
    for (const char* d : {".fill", ".space", ".skip", ".zero"})
      parser.addDirectiveHandler(d, {this, handler<&ExpansionBudget::reserve>});
  }

  const std::string& error() const { return error_; }

 private:
  struct Frame {
    uint64_t count;
    const char* body;
    llvm::SMLoc directive;
    uint64_t symbols;  // fingerprint of the assignments when the body began
  };

  template <bool (ExpansionBudget::*H)(llvm::StringRef, llvm::SMLoc)>
  static bool handler(llvm::MCAsmParserExtension* self, llvm::StringRef directive, llvm::SMLoc loc) {
    return HandleDirective<ExpansionBudget, H>(self, directive, loc);
  }

  uint64_t weight() const {
    uint64_t w = 1;
    for (const Frame& f : frames_) w = saturating_mul(w, f.count);
    return w;
  }

  bool fail(llvm::SMLoc loc, std::string message) {
    if (error_.empty()) {
      auto [line, column] = getSourceManager().getLineAndColumn(loc);
      error_ = fmt::format(":{}:{}: error: {}", line, column, message);
    }
    return Error(loc, message);
  }

  bool open(uint64_t count, llvm::SMLoc directive) {
    getParser().eatToEndOfStatement();
    frames_.push_back({count, getLexer().getLoc().getPointer(), directive, symbol_fingerprint()});
    return false;
  }

  // Identity of every assigned symbol's current value: a reassignment (`n = n * 2`,
  // `.set`) makes a new expression, so the fingerprint changes.
  uint64_t symbol_fingerprint() {
    uint64_t h = 0;
    for (const auto& entry : getContext().getSymbols()) {
      const llvm::MCSymbol* sym = entry.second.Symbol;
      if (sym && sym->isVariable())
        h += std::hash<const void*>()(sym->getVariableValue()) * 0x9e3779b97f4a7c15ull + std::hash<std::string_view>()(entry.first());
    }
    return h;
  }

  // A body that runs more than once here ran once: if it reassigned a symbol,
  // counts computed from symbols are no longer what the real expansion sees.
  bool symbols_unreliable() {
    if (reassigned_in_repeat_) return true;
    uint64_t now = symbol_fingerprint();
    for (const Frame& f : frames_)
      if (f.count > 1 && f.symbols != now) return true;
    return false;
  }

  // A repetition or byte count; one that depends on symbols a repeated body
  // reassigns cannot be bounded before assembly and is refused.
  std::optional<int64_t> count_expression(llvm::StringRef directive, llvm::SMLoc loc) {
    // The parser inlines a symbol's constant value, so "literal" is read off
    // the tokens: one integer ending the count.
    const llvm::AsmToken next = getLexer().peekTok();
    const bool literal = getLexer().is(llvm::AsmToken::Integer) &&
                         (next.is(llvm::AsmToken::EndOfStatement) || next.is(llvm::AsmToken::Comma));
    const llvm::MCExpr* expr = nullptr;
    llvm::SMLoc end;
    int64_t value = 0;
    if (getParser().parseExpression(expr, end) || !expr->evaluateAsAbsolute(value)) return 1;  // the real pass reports it
    if (!literal && symbols_unreliable()) {
      fail(loc, fmt::format("the {} count depends on a symbol that a repeated body reassigns; text assembly cannot "
                            "bound its expansion (use a constant count)", directive.str()));
      return std::nullopt;
    }
    return value;
  }

  bool repeat(llvm::StringRef directive, llvm::SMLoc loc) {
    auto count = count_expression(directive, loc);
    if (!count) return true;
    return open(uint64_t(std::max<int64_t>(*count, 0)), loc);
  }

  // .irp sym, a, b, c / .irpc sym, abc: one repetition per argument or character.
  bool irp(llvm::StringRef directive, llvm::SMLoc loc) {
    llvm::StringRef rest = getParser().parseStringToEndOfStatement();
    size_t comma = rest.find(',');
    llvm::StringRef args = comma == llvm::StringRef::npos ? llvm::StringRef() : rest.substr(comma + 1).trim();
    // Arguments are separated by commas or blanks (GNU mode); counting every
    // separator run bounds the count from above.
    uint64_t count = 1;
    for (size_t i = 0; i < args.size(); ++i)
      if ((args[i] == ',' || args[i] == ' ' || args[i] == '\t') && i + 1 < args.size() && args[i + 1] != ',' &&
          args[i + 1] != ' ' && args[i + 1] != '\t')
        ++count;
    if (directive == ".irpc") count = std::max<uint64_t>(1, args.size());
    return open(count, loc);
  }

  bool end_repeat(llvm::StringRef, llvm::SMLoc loc) {
    getParser().eatToEndOfStatement();
    if (frames_.empty()) return false;
    const char* end = loc.getPointer();
    const Frame frame = frames_.back();
    uint64_t lines = 1 + uint64_t(std::count(frame.body, std::max(frame.body, end), '\n'));
    repeated_lines_ += saturating_mul(lines, weight());
    if (frame.count > 1 && frame.symbols != symbol_fingerprint()) reassigned_in_repeat_ = true;
    frames_.pop_back();
    if (repeated_lines_ > options_.max_repeated_lines)
      return fail(frame.directive, fmt::format("repetition expands to more than {} lines (the limit of text assembly)",
                                   options_.max_repeated_lines));
    return false;
  }

  bool reserve(llvm::StringRef directive, llvm::SMLoc loc) {
    auto parsed = count_expression(directive, loc);
    if (!parsed) {
      getParser().eatToEndOfStatement();
      return true;
    }
    int64_t count = *parsed, size = 1;
    if (directive == ".fill" && getLexer().is(llvm::AsmToken::Comma)) {
      getParser().Lex();
      if (getParser().parseAbsoluteExpression(size)) size = 1;
    }
    getParser().eatToEndOfStatement();
    uint64_t bytes = saturating_mul(uint64_t(std::max<int64_t>(count, 0)), uint64_t(std::clamp<int64_t>(size, 0, 8)));
    reserved_bytes_ += saturating_mul(bytes, weight());
    if (reserved_bytes_ > options_.max_reserved_bytes)
      return fail(loc, fmt::format("{} reserves more than {} bytes in all (the limit of text assembly)",
                                   directive.str(), options_.max_reserved_bytes));
    return false;
  }

  const TextAssemblyOptions& options_;
  std::vector<Frame> frames_;
  bool reassigned_in_repeat_ = false;
  uint64_t repeated_lines_ = 0;
  uint64_t reserved_bytes_ = 0;
  std::string error_;
};

}  // namespace

void check_expansion(std::string_view text, std::string_view source_name, const TextAssemblyOptions& options) {
  static constexpr std::string_view kDirectives[] = {".rep", ".irp", ".fill", ".space", ".skip", ".zero", ".macro"};
  if (std::none_of(std::begin(kDirectives), std::end(kDirectives),
                   [&](std::string_view d) { return text.find(d) != std::string_view::npos; }))
    return;
  AssemblySession session(text, source_name);
  session.restrict_files(options);
  session.stream_to_object();
  ExpansionBudget budget(options);
  budget.Initialize(session.parser());
  session.parser().Run(/*NoInitialTextSection=*/false);  // other diagnostics are the real pass's
  if (!budget.error().empty()) throw Error(std::string(source_name) + budget.error());
}

}  // namespace cdna4::codegen
