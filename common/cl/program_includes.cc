#include "common/cl/program_includes.h"

#include <sys/stat.h>

#include <cctype>
#include <climits>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>

#include "common/cl/include_macros.h"

namespace gsvirt::cl {
namespace {

constexpr size_t kMaxDepth = 32;                    // include guards stop real recursion sooner
constexpr size_t kMaxInlinedBytes = size_t{16} << 20;  // beyond it directives stay for the host

// A word of the options with its place in the string; double quotes group (-I "a dir").
struct Word {
  size_t begin, end;
  std::string text;  // without the quotes
};

std::vector<Word> option_words(std::string_view options) {
  std::vector<Word> words;
  size_t i = 0;
  while (i < options.size()) {
    while (i < options.size() && std::isspace(static_cast<unsigned char>(options[i]))) ++i;
    if (i >= options.size()) break;
    Word w{i, i, ""};
    bool quoted = false;
    for (; i < options.size() && (quoted || !std::isspace(static_cast<unsigned char>(options[i]))); ++i) {
      if (options[i] == '"') quoted = !quoted;
      else w.text.push_back(options[i]);
    }
    w.end = i;
    words.push_back(std::move(w));
  }
  return words;
}

bool regular_file(const std::string& path) {
  struct stat s {};
  return stat(path.c_str(), &s) == 0 && S_ISREG(s.st_mode);
}

std::string directory_of(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
}

std::string line_marker(size_t line, const std::string& name) {
  std::string escaped;
  for (char c : name) {
    if (c == '"' || c == '\\') escaped.push_back('\\');
    escaped.push_back(c);
  }
  return "#line " + std::to_string(line) + " \"" + escaped + "\"\n";
}

// `# include "name"` or `<name>` on one line, or a computed `# include MACRO(...)` that the
// options' macros expand to one of those: the name, and whether it was quoted.
bool parse_include(std::string_view line, const IncludeMacros& macros, std::string* name, bool* quoted) {
  size_t i = line.find_first_not_of(" \t");
  if (i == std::string_view::npos || line[i] != '#') return false;
  i = line.find_first_not_of(" \t", i + 1);
  if (i == std::string_view::npos || line.substr(i, 7) != "include") return false;
  i = line.find_first_not_of(" \t", i + 7);
  if (i == std::string_view::npos) return false;
  if (line[i] != '"' && line[i] != '<') return macros.expand(line.substr(i), name, quoted);
  *quoted = line[i] == '"';
  const size_t end = line.find(*quoted ? '"' : '>', i + 1);
  if (end == std::string_view::npos || end == i + 1) return false;
  *name = std::string(line.substr(i + 1, end - i - 1));
  return true;
}

bool is_pragma_once(const std::string& line) {
  const size_t i = line.find_first_not_of(" \t");
  return i != std::string::npos && line[i] == '#' && line.find("pragma") != std::string::npos &&
         line.find("once") != std::string::npos;
}

bool has_pragma_once(const std::string& text) {
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (is_pragma_once(line)) return true;
  return false;
}

class Inliner {
 public:
  Inliner(const std::vector<std::string>& dirs, const IncludeMacros& macros) : dirs_(dirs), macros_(macros) {}
  bool changed() const { return changed_; }

  std::string process(const std::string& text, const std::string& dir, const std::string& name, size_t depth) {
    std::string out;
    std::istringstream in(text);
    size_t line_number = 0;
    for (std::string line; std::getline(in, line);) {
      ++line_number;
      std::string include, path, content;
      bool quoted = false;
      if (depth < kMaxDepth && parse_include(line, macros_, &include, &quoted) &&
          !(path = resolve(include, quoted, dir)).empty() && read(path, &content)) {
        char canonical[4096];
        const std::string key = realpath(path.c_str(), canonical) ? canonical : path;
        if (!once_.count(key)) {
          if (has_pragma_once(content)) once_.insert(key);
          out += line_marker(1, include) + process(content, directory_of(path), include, depth + 1) + "\n";
        }
        out += line_marker(line_number + 1, name);
        changed_ = true;
        continue;
      }
      // An inlined header's #pragma once is kept here (once_); left in, clang would warn that it
      // sits in the main file (PyOpenCL shows every build warning to its user).
      if (depth > 0 && is_pragma_once(line)) {
        out += "\n";
        continue;
      }
      out += line + "\n";
    }
    return out;
  }

 private:
  std::string resolve(const std::string& name, bool quoted, const std::string& dir) const {
    if (name.front() == '/') return regular_file(name) ? name : "";
    if (quoted && regular_file(dir + "/" + name)) return dir + "/" + name;
    for (const std::string& d : dirs_)
      if (regular_file(d + "/" + name)) return d + "/" + name;
    return "";
  }

  bool read(const std::string& path, std::string* out) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return false;
    std::ostringstream s;
    s << in.rdbuf();
    if (bytes_ + s.str().size() > kMaxInlinedBytes) return false;
    *out = s.str();
    bytes_ += out->size();
    return true;
  }

  const std::vector<std::string>& dirs_;
  const IncludeMacros& macros_;
  std::set<std::string> once_;
  size_t bytes_ = 0;
  bool changed_ = false;
};

}  // namespace

std::string take_include_dirs(std::string_view options, std::vector<std::string>* dirs) {
  const std::vector<Word> words = option_words(options);
  std::string out;
  size_t copied = 0;
  for (size_t i = 0; i < words.size(); ++i) {
    const Word& w = words[i];
    if (w.text.rfind("-I", 0) != 0) continue;
    size_t end = w.end;
    if (w.text.size() > 2) {
      dirs->push_back(w.text.substr(2));
    } else if (i + 1 < words.size()) {
      dirs->push_back(words[++i].text);
      end = words[i].end;
    }
    out += options.substr(copied, w.begin - copied);
    copied = end;
  }
  out += options.substr(copied);
  return out;
}

std::vector<std::string> define_options(std::string_view options) {
  const std::vector<Word> words = option_words(options);
  std::vector<std::string> defines;
  for (size_t i = 0; i < words.size(); ++i) {
    if (words[i].text.rfind("-D", 0) != 0) continue;
    if (words[i].text.size() > 2) defines.push_back(words[i].text.substr(2));
    else if (i + 1 < words.size()) defines.push_back(words[++i].text);
  }
  return defines;
}

std::string inline_includes(const std::string& source, const std::vector<std::string>& dirs,
                            const std::vector<std::string>& defines, bool* changed) {
  const IncludeMacros macros(defines);
  Inliner inliner(dirs, macros);
  std::string out = inliner.process(source, ".", "program.cl", 0);
  *changed = inliner.changed();
  return *changed ? out : source;
}

}  // namespace gsvirt::cl
