#include "cli/opt_parser.h"

#include <string_view>

namespace sluice {
namespace {

class Parser {
 public:
  Parser(const std::string& prog, const std::vector<std::string>& args,
         const std::vector<OptionDef>& defs, const ParseSettings& settings)
      : prog_(prog), args_(args), defs_(defs), settings_(settings) {}

  Expected<ParsedArgs> Run() {
    while (i_ < args_.size()) {
      const std::string& a = args_[i_++];
      if (a == "--") {
        TakeRest();
        break;
      }
      bad_arg = a;
      if (a.size() >= 2 && a[0] == '-' && a[1] == '-') {
        if (Status st = Long(a); !st.ok()) return st;
      } else if (a.size() >= 2 && a[0] == '-') {
        if (Status st = Shorts(a); !st.ok()) return st;
      } else {
        out_.positionals.push_back(a);
        if (settings_.stop_at_first_positional) {
          TakeRest();
          break;
        }
      }
    }
    return std::move(out_);
  }

 private:
  void TakeRest() {
    while (i_ < args_.size()) out_.positionals.push_back(args_[i_++]);
  }

  Status Error(const std::string& text) { return InvalidArgument(prog_ + ": " + text); }

 public:
  std::string bad_arg;

 private:
  Status Long(const std::string& a) {
    std::string_view body = std::string_view(a).substr(2);
    size_t eq = body.find('=');
    std::string name(body.substr(0, eq));
    const OptionDef* def = nullptr;
    std::vector<const OptionDef*> cands;
    for (const OptionDef& d : defs_) {
      if (!d.long_name) continue;
      std::string_view ln(d.long_name);
      if (ln == name) {
        def = &d;
        break;
      }
      if (ln.substr(0, name.size()) == name) cands.push_back(&d);
    }
    if (!def) {
      if (cands.empty()) return Error("unrecognized option '" + a + "'");
      // Like glibc: prefixes of aliases (same id and argument kind) are one option; the
      // message quotes the word as typed ("--state=R") and lists the first candidate and
      // each one that differs from it.
      def = cands[0];
      std::vector<const OptionDef*> differing;
      for (auto* c : cands)
        if (c->id != def->id || c->arg != def->arg) differing.push_back(c);
      if (!differing.empty()) {
        std::string m =
            "option '" + a + "' is ambiguous; possibilities: '--" + def->long_name + "'";
        for (auto* c : differing) m += std::string(" '--") + c->long_name + "'";
        return Error(m);
      }
    }
    ParsedOption opt{def->id, "", false, std::string("--") + def->long_name};
    if (eq != std::string_view::npos) {
      if (def->arg == ArgKind::kNone)
        return Error(std::string("option '--") + def->long_name + "' doesn't allow an argument");
      opt.value = std::string(body.substr(eq + 1));
      opt.has_value = true;
    } else if (def->arg == ArgKind::kRequired) {
      if (i_ >= args_.size())
        return Error(std::string("option '--") + def->long_name + "' requires an argument");
      opt.value = args_[i_++];
      opt.has_value = true;
    } else if (def->arg == ArgKind::kOptional) {
      MaybeTakeNextWord(*def, &opt);
    }
    out_.options.push_back(std::move(opt));
    return Status::Ok();
  }

  void MaybeTakeNextWord(const OptionDef& def, ParsedOption* opt) {
    if (!settings_.optional_takes_next_word.count(def.id)) return;
    if (i_ < args_.size() && !args_[i_].empty() && args_[i_][0] != '-') {
      opt->value = args_[i_++];
      opt->has_value = true;
    }
  }

  const OptionDef* FindShort(char c) {
    for (const OptionDef& d : defs_)
      if (d.short_name == c) return &d;
    return nullptr;
  }

  Status Shorts(const std::string& a) {
    for (size_t k = 1; k < a.size(); ++k) {
      char c = a[k];
      const OptionDef* def = FindShort(c);
      if (!def) return Error(std::string("invalid option -- '") + c + "'");
      ParsedOption opt{def->id, "", false, std::string("-") + c};
      std::string rest = a.substr(k + 1);
      if (def->arg == ArgKind::kNone) {
        out_.options.push_back(std::move(opt));
        continue;
      }
      if (!rest.empty()) {
        opt.value = rest;
        opt.has_value = true;
      } else if (def->arg == ArgKind::kRequired) {
        if (i_ >= args_.size())
          return Error(std::string("option requires an argument -- '") + c + "'");
        opt.value = args_[i_++];
        opt.has_value = true;
      } else {
        MaybeTakeNextWord(*def, &opt);
      }
      out_.options.push_back(std::move(opt));
      return Status::Ok();
    }
    return Status::Ok();
  }

  const std::string& prog_;
  const std::vector<std::string>& args_;
  const std::vector<OptionDef>& defs_;
  const ParseSettings& settings_;
  size_t i_ = 0;
  ParsedArgs out_;
};

}  // namespace

Expected<ParsedArgs> ParseCommandLine(const std::string& prog, const std::vector<std::string>& args,
                                      const std::vector<OptionDef>& defs,
                                      const ParseSettings& settings, std::string* bad_arg) {
  Parser parser(prog, args, defs, settings);
  Expected<ParsedArgs> result = parser.Run();
  if (!result.ok() && bad_arg) *bad_arg = parser.bad_arg;
  return result;
}

std::string LongOptionName(const ParsedOption& opt, const std::vector<OptionDef>& defs) {
  if (opt.spelled.size() > 2 && opt.spelled[1] == '-') return opt.spelled;
  for (const OptionDef& d : defs)
    if (opt.spelled.size() == 2 && d.short_name == opt.spelled[1] && d.long_name)
      return std::string("--") + d.long_name;
  return opt.spelled;
}

}  // namespace sluice
