#include "app/check_report.h"

#include <algorithm>
#include <cstdio>
#include <iomanip>
#include <ostream>
#include <sstream>

namespace slabcast {
namespace {

std::string json_string(const std::string& text) {
  std::string s = "\"";
  for (const char c : text) {
    switch (c) {
      case '"': s += "\\\""; break;
      case '\\': s += "\\\\"; break;
      case '\n': s += "\\n"; break;
      case '\t': s += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char escaped[8];
          std::snprintf(escaped, sizeof escaped, "\\u%04x", static_cast<unsigned>(static_cast<unsigned char>(c)));
          s += escaped;
        } else {
          s += c;
        }
    }
  }
  return s + "\"";
}

std::string xml_text(const std::string& text) {
  std::string s;
  for (const char c : text) {
    switch (c) {
      case '&': s += "&amp;"; break;
      case '<': s += "&lt;"; break;
      case '>': s += "&gt;"; break;
      case '"': s += "&quot;"; break;
      case '\n': s += "&#10;"; break;
      default: s += c;
    }
  }
  return s;
}

size_t matched(const std::vector<SceneOutcome>& scenes) {
  return size_t(std::count_if(scenes.begin(), scenes.end(), [](const SceneOutcome& s) { return s.ok(); }));
}

}  // namespace

const char* to_string(CheckResult result) {
  switch (result) {
    case CheckResult::pass: return "pass";
    case CheckResult::fail: return "FAIL";
    case CheckResult::missing: return "missing";
    case CheckResult::updated: return "updated";
    case CheckResult::error: return "error";
  }
  return "?";
}

void print_check_table(const std::vector<SceneOutcome>& scenes, bool update, std::ostream& out) {
  size_t name_width = 5;
  for (const SceneOutcome& s : scenes) name_width = std::max(name_width, s.name.size());
  const int w = int(name_width) + 2;
  out << std::left << std::setw(w) << "scene" << std::setw(9) << "result" << std::right << std::setw(10)
      << "differ %" << std::setw(7) << "worst" << std::setw(10) << "ms" << "\n";
  for (const SceneOutcome& s : scenes) {
    out << std::left << std::setw(w) << s.name << std::setw(9) << to_string(s.result) << std::right << std::fixed;
    if (s.result == CheckResult::pass || s.result == CheckResult::fail) {
      out << std::setprecision(3) << std::setw(10) << s.differing_fraction * 100.0 << std::setw(7) << s.worst_channel;
    } else {
      out << std::setw(10) << "-" << std::setw(7) << "-";
    }
    out << std::setprecision(1) << std::setw(10) << s.ms << "\n" << std::defaultfloat;
  }
  for (const SceneOutcome& s : scenes) {
    if (!s.message.empty()) out << s.name << ": " << s.message << "\n";
  }
  out << matched(scenes) << " of " << scenes.size() << (update ? " goldens updated" : " scenes match") << "\n";
}

std::string check_json(const CheckOptions& options, const std::vector<SceneOutcome>& scenes) {
  std::ostringstream j;
  j << std::setprecision(9);
  j << "{\n  \"scenes_file\": " << json_string(options.scenes_path) << ",\n  \"goldens\": "
    << json_string(options.goldens_dir) << ",\n  \"backend\": " << json_string(options.backend)
    << ",\n  \"update\": " << (options.update ? "true" : "false") << ",\n  \"scenes\": [";
  // One scene a line, so that a line-oriented tool can pick one out.
  for (size_t i = 0; i < scenes.size(); ++i) {
    const SceneOutcome& s = scenes[i];
    j << (i == 0 ? "\n" : ",\n") << "    {\"name\": " << json_string(s.name) << ", \"args\": " << json_string(s.args)
      << ", \"result\": " << json_string(to_string(s.result)) << ", \"differing_fraction\": " << s.differing_fraction
      << ", \"worst_channel\": " << s.worst_channel << ", \"ids_differing_fraction\": ";
    if (s.ids_differing_fraction < 0.0) {
      j << "null";
    } else {
      j << s.ids_differing_fraction;
    }
    j << ", \"ms\": " << s.ms << ", \"diff\": " << (s.diff_path.empty() ? "null" : json_string(s.diff_path))
      << ", \"message\": " << json_string(s.message) << "}";
  }
  j << "\n  ],\n  \"matched\": " << matched(scenes) << ",\n  \"total\": " << scenes.size() << "\n}\n";
  return j.str();
}

std::string check_junit(const std::vector<SceneOutcome>& scenes) {
  double total_ms = 0.0;
  for (const SceneOutcome& s : scenes) total_ms += s.ms;
  std::ostringstream x;
  x << std::fixed << std::setprecision(3);
  x << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n  <testsuite name=\"slabcast check\" tests=\""
    << scenes.size() << "\" failures=\"" << scenes.size() - matched(scenes) << "\" errors=\"0\" time=\""
    << total_ms / 1000.0 << "\">\n";
  for (const SceneOutcome& s : scenes) {
    x << "    <testcase classname=\"slabcast check\" name=\"" << xml_text(s.name) << "\" time=\"" << s.ms / 1000.0
      << "\"";
    if (s.ok()) {
      x << "/>\n";
    } else {
      x << ">\n      <failure message=\"" << xml_text(std::string(to_string(s.result)) + ": " + s.message)
        << "\" type=\"" << to_string(s.result) << "\">" << xml_text(s.args) << "</failure>\n    </testcase>\n";
    }
  }
  x << "  </testsuite>\n</testsuites>\n";
  return x.str();
}

}  // namespace slabcast
