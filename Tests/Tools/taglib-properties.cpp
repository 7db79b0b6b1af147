// Prints, for each file named on stdin (one path per line), one JSON line
// {"path": ..., "tags": {KEY: [value, ...]}} with TagLib's property map of
// the file (its unified tag names: TITLE, ARTIST, DATE, TRACKNUMBER, ...).
// An independent reader for the operation matrix; built by the tests with
// `g++ $(pkg-config --cflags --libs taglib)`.
#include <fileref.h>
#include <tpropertymap.h>

#include <cstdio>
#include <iostream>
#include <string>

static std::string quoted(const std::string &text) {
    std::string out = "\"";
    for (unsigned char c : text) {
        switch (c) {
        case '"': out += "\\\""; break;
        case '\\': out += "\\\\"; break;
        case '\n': out += "\\n"; break;
        case '\r': out += "\\r"; break;
        case '\t': out += "\\t"; break;
        default:
            if (c < 0x20) {
                char buffer[8];
                std::snprintf(buffer, sizeof buffer, "\\u%04x", c);
                out += buffer;
            } else {
                out += static_cast<char>(c);
            }
        }
    }
    return out + "\"";
}

int main() {
    std::string path;
    while (std::getline(std::cin, path)) {
        if (path.empty()) continue;
        TagLib::FileRef file(path.c_str(), false);
        std::string line = "{\"path\":" + quoted(path) + ",\"tags\":{";
        if (!file.isNull() && file.file()) {
            TagLib::PropertyMap map = file.file()->properties();
            bool firstKey = true;
            for (auto it = map.begin(); it != map.end(); ++it) {
                line += (firstKey ? "" : ",") + quoted(it->first.to8Bit(true)) + ":[";
                firstKey = false;
                bool firstValue = true;
                for (const auto &value : it->second) {
                    line += (firstValue ? "" : ",") + quoted(value.to8Bit(true));
                    firstValue = false;
                }
                line += "]";
            }
        } else {
            line += "\"error\":[\"unreadable\"]";
        }
        std::cout << line << "}}" << std::endl;
    }
    return 0;
}
