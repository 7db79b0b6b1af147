// taglib-write: the TagLib baseline of the write benchmark (see README.md).
//
// usage: taglib-write RUN LENGTH FILE...
//
// For each FILE (index i = 1, 2, ... in argument order): open it once with
// TagLib::FileRef (tags only, no audio properties), set the title and the
// artist, and save. The values depend on the run number RUN, so that every run
// really changes them, and are padded to LENGTH characters (code points), so the
// caller decides whether the new values fit in the tag's padding or grow it:
//
//   title  = "Write <RUN> title <i, 5 digits> "  + filler, LENGTH characters
//   artist = "Write <RUN> artist <i, 5 digits> " + filler, LENGTH characters
//
// with the filler cycling through FILLER below (non-ASCII on purpose) and a final
// space, if any, replaced by a full stop. This is the
// same formula as values() in mutagen-write.py, which the benchmark uses to check
// the results of every tool (mdkit gets i = 0 for all files, as one `--set` value
// applies to every file of a `mdkit write` invocation).
//
// FileRef::save() keeps each file's tag format: ID3v2.3 stays 2.3 (TagLib 1.13
// writes ID3v2.4 by default, so MP3s are saved through MPEG::File::save with the
// tag's own version) and ID3v1 is neither added nor removed (FileRef::save would
// add one), which is what `mdkit write` does by default. Like mutagen, TagLib
// does not fsync. A file that cannot be opened or saved gives a line on stderr
// and makes the exit status 1.
//
// The other formats go through plain FileRef::save(): FLAC and Ogg Vorbis/Opus
// rewrite their Vorbis comment (FLAC keeps its PICTURE block; Ogg keeps the
// METADATA_BLOCK_PICTURE comment, which XiphComment holds as a picture), AIFF
// saves its ID3v2 chunk as ID3v2.4 (the corpus's version), and WAV saves with
// WAV::File::save() = save(AllTags, StripOthers, ID3v2::v4), TagLib's default:
// it would write both an ID3v2 chunk and a RIFF INFO chunk, but in TagLib 1.13
// WAV::File::tag() (what FileRef::tag() returns) is the ID3v2 tag alone, so
// the INFO tag stays empty and is not written (no LIST/INFO chunk; checked on
// the corpus). The ID3v2.4 tag is written as an "ID3 " chunk, replacing the
// "id3 " chunk mutagen made (mutagen and mdkit keep the chunk's name).
//
// Build: g++ -O2 -std=c++17 taglib-write.cpp $(pkg-config --cflags --libs taglib)

#include <cstdio>
#include <cstdlib>
#include <cwchar>
#include <string>

#include <fileref.h>
#include <tag.h>
#include <tfile.h>
#include <mpegfile.h>
#include <id3v2tag.h>
#include <id3v2header.h>

namespace {

const wchar_t FILLER[] = L"Ünïcødé ✓ — Ça ira № ";

std::wstring value(const char *field, long run, long index, long length) {
    wchar_t head[64];
    std::swprintf(head, sizeof head / sizeof head[0], L"Write %ld %ls %05ld ", run,
                  field[0] == 't' ? L"title" : L"artist", index);
    std::wstring text(head);
    const size_t fillerLength = std::wcslen(FILLER);
    for (size_t k = 0; text.size() < static_cast<size_t>(length); ++k)
        text.push_back(FILLER[k % fillerLength]);
    if (text.size() > static_cast<size_t>(length)) text.resize(length);
    if (!text.empty() && text.back() == L' ') text.back() = L'.';  // no trailing space
    return text;
}

bool parse(const char *text, long &out) {
    char *end = nullptr;
    out = std::strtol(text, &end, 10);
    return end != text && *end == '\0' && out >= 0;
}

}  // namespace

int main(int argc, char **argv) {
    long run = 0, length = 0;
    if (argc < 3 || !parse(argv[1], run) || !parse(argv[2], length)) {
        std::fprintf(stderr, "usage: taglib-write RUN LENGTH FILE...\n");
        return 2;
    }
    int status = 0;
    for (int i = 3; i < argc; ++i) {
        const char *path = argv[i];
        const long index = i - 2;
        TagLib::FileRef ref(path, false);
        if (ref.isNull() || !ref.tag()) {
            std::fprintf(stderr, "%s: error: cannot open\n", path);
            status = 1;
            continue;
        }
        TagLib::Tag *tag = ref.tag();
        tag->setTitle(TagLib::String(value("title", run, index, length)));
        tag->setArtist(TagLib::String(value("artist", run, index, length)));
        bool saved;
        if (auto *mpeg = dynamic_cast<TagLib::MPEG::File *>(ref.file())) {
            // Keep the ID3v2 version (FileRef::save would turn 2.3 into 2.4) and
            // write only the tags the file had: FileRef::save would also add an
            // ID3v1 tag (MPEG::File always makes an empty one, which setTitle fills).
            TagLib::ID3v2::Tag *id3 = mpeg->ID3v2Tag(false);
            const auto version = id3 && id3->header()->majorVersion() == 3
                ? TagLib::ID3v2::v3 : TagLib::ID3v2::v4;
            int tags = TagLib::MPEG::File::ID3v2;
            if (mpeg->hasID3v1Tag()) tags |= TagLib::MPEG::File::ID3v1;
            if (mpeg->hasAPETag()) tags |= TagLib::MPEG::File::APE;
            saved = mpeg->save(tags, TagLib::File::StripNone, version, TagLib::File::DoNotDuplicate);
        } else {
            saved = ref.save();
        }
        if (!saved) {
            std::fprintf(stderr, "%s: error: save failed\n", path);
            status = 1;
        }
    }
    return status;
}
