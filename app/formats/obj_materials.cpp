#include "app/formats/obj_materials.h"

#include "app/image_io.h"

#include <tiny_obj_loader.h>  // the implementation is compiled in app/mesh_io.cpp

#include <cmath>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>

namespace slabcast::formats {
namespace {

std::string folder_of(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? std::string() : path.substr(0, slash + 1);
}

std::string resolve(const std::string& folder, std::string file) {
  for (char& c : file) {
    if (c == '\\') c = '/';  // written on Windows
  }
  return !file.empty() && file[0] == '/' ? file : folder + file;
}

// The materials of one library that set Kd: tinyobjloader's material_t does not say whether Kd was given (it
// reads a missing one as 0, black, or as 0.6 beside a map_Kd), and a material without Kd is white here.
std::map<std::string, bool> materials_with_kd(const std::string& text) {
  std::map<std::string, bool> with_kd;
  std::istringstream lines(text);
  std::string line, current;
  while (std::getline(lines, line)) {
    size_t i = line.find_first_not_of(" \t");
    if (i == std::string::npos) continue;
    if (line.compare(i, 7, "newmtl ") == 0 || line.compare(i, 7, "newmtl\t") == 0) {
      size_t a = line.find_first_not_of(" \t", i + 6), b = line.find_last_not_of(" \t\r");
      current = a == std::string::npos ? std::string() : line.substr(a, b + 1 - a);
      with_kd[current] = false;
    } else if (line.compare(i, 3, "Kd ") == 0 || line.compare(i, 3, "Kd\t") == 0) {
      with_kd[current] = true;
    }
  }
  return with_kd;
}

float finite_or(float value, float otherwise) { return std::isfinite(value) ? value : otherwise; }

struct LibraryMaterial {
  tinyobj::material_t material;
  bool has_kd = false;
  std::string folder;  // of its library, for its textures
};

}  // namespace

void load_obj_materials(const std::string& obj_path, const std::vector<ObjLibraryRef>& libraries,
                        const std::vector<ObjMaterialUse>& uses, Mesh* mesh, const LoadWarning& warn) {
  const auto warning = [&](size_t line, const std::string& what) {
    if (warn) warn(obj_path + ":" + std::to_string(line) + ": " + what);
  };
  // Every material of every library, by name; the first definition of a name wins, as in tinyobjloader.
  std::map<std::string, LibraryMaterial> defined;
  for (const ObjLibraryRef& library : libraries) {
    const std::string path = resolve(folder_of(obj_path), library.file);
    std::ifstream in(path, std::ios::binary);
    std::stringstream text;
    if (!in || !(text << in.rdbuf())) {
      warning(library.line, "material library " + path + " cannot be read (" +
                                (in ? "empty or unreadable" : "missing or not a file") + "): its materials are white");
      continue;
    }
    std::map<std::string, int> index;
    std::vector<tinyobj::material_t> materials;
    std::string mtl_warnings, mtl_errors;
    std::istringstream stream(text.str());
    tinyobj::LoadMtl(&index, &materials, &stream, &mtl_warnings, &mtl_errors);
    const std::map<std::string, bool> kd = materials_with_kd(text.str());
    for (const tinyobj::material_t& m : materials) {
      const auto found = kd.find(m.name);
      defined.try_emplace(m.name, LibraryMaterial{m, found != kd.end() && found->second, folder_of(path)});
    }
  }

  std::map<std::string, int32_t> texture_of_path;  // a texture used by several materials is decoded once
  mesh->materials.assign(uses.size(), Material{});
  for (size_t i = 0; i < uses.size(); ++i) {
    const auto found = defined.find(uses[i].name);
    if (found == defined.end()) {
      if (!libraries.empty() || !uses[i].name.empty()) {
        warning(uses[i].line, "material '" + uses[i].name.substr(0, 64) + "' is defined in no material library" +
                                  (libraries.empty() ? " (the file names none)" : "") + ": it is white");
      }
      continue;
    }
    const tinyobj::material_t& m = found->second.material;
    Material& out = mesh->materials[i];
    if (found->second.has_kd) {
      out.base_color = {finite_or(m.diffuse[0], 1.0f), finite_or(m.diffuse[1], 1.0f), finite_or(m.diffuse[2], 1.0f),
                        1.0f};
    }
    out.base_color.a = finite_or(m.dissolve, 1.0f);
    if (m.diffuse_texname.empty()) continue;
    const std::string texture_path = resolve(found->second.folder, m.diffuse_texname);
    const auto known = texture_of_path.find(texture_path);
    if (known != texture_of_path.end()) {
      out.texture = known->second;
      continue;
    }
    try {
      Rgba8Image image = read_texture(texture_path, kMaxTextureTexels);
      Texture texture;
      texture.name = texture_path;
      texture.width = image.width;
      texture.height = image.height;
      texture.rgba = std::move(image.pixels);
      out.texture = int32_t(mesh->textures.size());
      mesh->textures.push_back(std::move(texture));
    } catch (const std::runtime_error& e) {
      warning(uses[i].line, "material '" + uses[i].name.substr(0, 64) + "': texture " + e.what() +
                                ": the material keeps its base colour");
    } catch (const std::bad_alloc&) {
      warning(uses[i].line, "material '" + uses[i].name.substr(0, 64) + "': texture " + texture_path +
                                ": out of host memory decoding it: the material keeps its base colour");
    }
    texture_of_path[texture_path] = out.texture;  // -1 after a failure: one warning per texture
  }
}

}  // namespace slabcast::formats
