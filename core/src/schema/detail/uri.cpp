#include "schema/detail/uri.hpp"

#include <cctype>

namespace skillrt::schema::detail {
namespace {

bool has_scheme(std::string_view ref) {
  if (ref.empty() || !std::isalpha(static_cast<unsigned char>(ref[0]))) return false;
  for (std::size_t i = 1; i < ref.size(); ++i) {
    const char c = ref[i];
    if (c == ':') return true;
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '+' && c != '-' && c != '.') {
      return false;
    }
  }
  return false;
}

void pop_segment(std::string& out) {
  const std::size_t slash = out.rfind('/');
  out.erase(slash == std::string::npos ? 0 : slash);
}

// RFC 3986 5.2.4, applied to the path only; query and fragment are kept as they are.
std::string remove_dot_segments(std::string_view reference) {
  const std::size_t end = reference.find_first_of("?#");
  std::string in(reference.substr(0, end));
  const std::string_view suffix =
      end == std::string_view::npos ? std::string_view() : reference.substr(end);
  std::string out;
  while (!in.empty()) {
    if (in.starts_with("../")) {
      in.erase(0, 3);
    } else if (in.starts_with("./")) {
      in.erase(0, 2);
    } else if (in.starts_with("/./")) {
      in.replace(0, 3, "/");
    } else if (in == "/.") {
      in = "/";
    } else if (in.starts_with("/../")) {
      in.replace(0, 4, "/");
      pop_segment(out);
    } else if (in == "/..") {
      in = "/";
      pop_segment(out);
    } else if (in == "." || in == "..") {
      in.clear();
    } else {
      const std::size_t next = in.find('/', in[0] == '/' ? 1 : 0);
      const std::size_t length = next == std::string::npos ? in.size() : next;
      out += in.substr(0, length);
      in.erase(0, length);
    }
  }
  return out + std::string(suffix);
}

}  // namespace

std::string strip_fragment(std::string_view uri) {
  return std::string(uri.substr(0, uri.find('#')));
}

std::string resolve_uri(std::string_view base, std::string_view ref) {
  if (has_scheme(ref)) {
    const std::size_t colon = ref.find(':');
    const std::string_view rest = ref.substr(colon + 1);
    if (!rest.starts_with("//")) return std::string(ref);
    const std::size_t path_at = rest.find_first_of("/?#", 2);
    if (path_at == std::string_view::npos) return std::string(ref);
    return std::string(ref.substr(0, colon + 1)) + std::string(rest.substr(0, path_at)) +
           remove_dot_segments(rest.substr(path_at));
  }
  if (base.empty()) return std::string(ref);
  const std::string whole = strip_fragment(base);
  if (ref.empty()) return whole;
  if (ref[0] == '#') return whole + std::string(ref);

  const std::size_t colon = whole.find(':');
  if (colon == std::string::npos) return std::string(ref);
  const std::string scheme = whole.substr(0, colon + 1);
  std::string_view rest = std::string_view(whole).substr(colon + 1);
  std::string authority;
  if (rest.starts_with("//")) {
    const std::size_t slash = rest.find_first_of("/?", 2);
    authority = std::string(rest.substr(0, slash));
    rest = slash == std::string_view::npos ? std::string_view() : rest.substr(slash);
  }
  std::string path(rest.substr(0, rest.find('?')));

  if (ref.starts_with("//")) return scheme + remove_dot_segments(ref);
  if (ref[0] == '/') return scheme + authority + remove_dot_segments(ref);
  if (ref[0] == '?') return scheme + authority + path + std::string(ref);
  std::string directory;
  if (!authority.empty() && path.empty()) {
    directory = "/";
  } else {
    const std::size_t slash = path.rfind('/');
    directory = slash == std::string::npos ? std::string() : path.substr(0, slash + 1);
  }
  return scheme + authority + remove_dot_segments(directory + std::string(ref));
}

}  // namespace skillrt::schema::detail
