// TagLib's reading of a tracker module (MOD, S3M, XM, IT), printed as one
// JSON line: title, comment, tracker name and the audio properties TagLib
// has for the format. With `--title TEXT` and/or `--comment TEXT` it first
// sets them and saves the file, as TagLib writes them ("saved": what
// TagLib's save() returned). An independent reader
// and writer for the tracker tests; built by them with
// `g++ $(pkg-config --cflags --libs taglib)`.
//
// Usage: taglib-tracker FILE [--title TEXT] [--comment TEXT]
#include <itfile.h>
#include <modfile.h>
#include <s3mfile.h>
#include <xmfile.h>

#include <cstdio>
#include <cstring>
#include <iostream>
#include <string>
#include <type_traits>

static std::string quoted(const std::string &text) {
    std::string out = "\"";
    for (unsigned char c : text) {
        if (c == '"' || c == '\\') {
            out += '\\';
            out += static_cast<char>(c);
        } else if (c < 0x20) {
            char buffer[8];
            std::snprintf(buffer, sizeof buffer, "\\u%04x", c);
            out += buffer;
        } else {
            out += static_cast<char>(c);
        }
    }
    return out + "\"";
}

static std::string field(const char *name, int value) { return std::string(",\"") + name + "\":" + std::to_string(value); }

template <class File> static int run(File &file, int argc, char **argv) {
    if (!file.isValid()) {
        std::cout << "{\"error\":\"invalid\"}" << std::endl;
        return 1;
    }
    bool changed = false;
    for (int i = 2; i + 1 < argc; i += 2) {
        TagLib::String value(argv[i + 1], TagLib::String::UTF8);
        if (std::strcmp(argv[i], "--title") == 0) file.tag()->setTitle(value);
        if (std::strcmp(argv[i], "--comment") == 0) file.tag()->setComment(value);
        changed = true;
    }
    // TagLib 1.13 reports a failed save of some XM files after it has
    // written the title; "saved" says what save() returned.
    bool saved = !changed || file.save();
    auto *tag = file.tag();
    auto *properties = file.audioProperties();
    std::string line = std::string("{\"saved\":") + (saved ? "true" : "false") + ",\"title\":" + quoted(tag->title().to8Bit(true)) + ",\"comment\":" + quoted(tag->comment().to8Bit(true)) +
                       ",\"trackerName\":" + quoted(tag->trackerName().to8Bit(true));
    line += field("channels", properties->channels());
    line += field("lengthInPatterns", properties->lengthInPatterns());
    if constexpr (std::is_same<File, TagLib::Mod::File>::value) {
        line += field("instrumentCount", properties->instrumentCount());
    } else if constexpr (std::is_same<File, TagLib::S3M::File>::value) {
        line += field("sampleCount", properties->sampleCount()) + field("patternCount", properties->patternCount());
        line += field("trackerVersion", properties->trackerVersion());
    } else {
        line += field("instrumentCount", properties->instrumentCount()) + field("sampleCount", properties->sampleCount());
        line += field("patternCount", properties->patternCount()) + field("version", properties->version());
    }
    std::cout << line << "}" << std::endl;
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 2) return 2;
    std::string path = argv[1];
    std::string extension = path.substr(path.rfind('.') + 1);
    if (extension == "mod") {
        TagLib::Mod::File file(argv[1]);
        return run(file, argc, argv);
    } else if (extension == "s3m") {
        TagLib::S3M::File file(argv[1]);
        return run(file, argc, argv);
    } else if (extension == "xm") {
        TagLib::XM::File file(argv[1]);
        return run(file, argc, argv);
    } else if (extension == "it") {
        TagLib::IT::File file(argv[1]);
        return run(file, argc, argv);
    }
    return 2;
}
