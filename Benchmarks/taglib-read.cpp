// taglib-read: the TagLib baseline of the read benchmark (see README.md).
//
// For each path argument: open it once with TagLib::FileRef (tags plus audio
// properties, Average read style), print title, artist, album, genre, year,
// track, disc, comment, duration, bitrate and sample rate, and walk the
// pictures (ID3v2 APIC frames for MP3 and for the ID3 chunk of WAV and AIFF,
// the covr item for MP4, the PICTURE blocks of FLAC, the METADATA_BLOCK_PICTURE
// comments of Ogg Vorbis and Opus, which XiphComment::pictureList() decodes, the
// "Cover Art (Front)" APEv2 item of WavPack and Musepack, ASF's WM/Picture),
// printing their count, MIME type, byte count and the leading bytes, so that
// the work is comparable to `mdkit read --json` (which also reports the artwork).
//
// TagLib 1.13 (Debian bookworm) has no generic complexProperties("PICTURE")
// API (that arrived in 2.0), so the pictures (and the disc number, which the
// generic Tag lacks) are read through the per-format classes, reusing the
// TagLib::File that FileRef already opened. The Opus files are named .opus:
// TagLib's FileRef picks the class by the extension.
//
// Everything goes to stdout, one tab-separated line per file; a file TagLib
// cannot open gives an "ERROR" line and makes the exit status 1.
//
// Matroska (.mka, .mkv, .webm) is read when built against TagLib 2.2 or newer (the
// complexProperties("PICTURE") API, and Matroska::File::chapters()); with an older TagLib
// those files give "ERROR" lines as before.
//
// Build: g++ -O2 -std=c++17 taglib-read.cpp $(pkg-config --cflags --libs taglib)

#include <cstdio>
#include <string>

#include <fileref.h>
#include <tag.h>
#include <audioproperties.h>
#include <mpegfile.h>
#include <id3v2tag.h>
#include <id3v2frame.h>
#include <attachedpictureframe.h>
#include <mp4file.h>
#include <mp4tag.h>
#include <mp4item.h>
#include <mp4coverart.h>
#include <flacfile.h>
#include <flacpicture.h>
#include <xiphcomment.h>
#include <vorbisfile.h>
#include <opusfile.h>
#include <wavfile.h>
#include <aifffile.h>
#include <apetag.h>
#include <apeitem.h>
#include <wavpackfile.h>
#include <mpcfile.h>
#include <trueaudiofile.h>
#include <asffile.h>
#include <asftag.h>
#include <asfpicture.h>
#include <taglib.h>

// Matroska arrived in TagLib 2.2 (Debian's 1.13 has none): read .mka/.mkv/.webm when the
// TagLib this is built against has it, through the same per-file-class path as the others.
#if TAGLIB_MAJOR_VERSION > 2 || (TAGLIB_MAJOR_VERSION == 2 && TAGLIB_MINOR_VERSION >= 2)
#define TAGLIB_READ_MATROSKA 1
#include <matroskafile.h>
#include <matroskachapters.h>
#include <matroskachapteredition.h>
#include <matroskachapter.h>
#endif

namespace {

std::string oneLine(const TagLib::String &value) {
    std::string text = value.to8Bit(true);
    for (char &c : text) {
        if (c == '\t' || c == '\n' || c == '\r') c = ' ';
    }
    return text;
}

struct Pictures {
    unsigned count = 0;
    std::string mimeType;
    unsigned long bytes = 0;
    unsigned leading = 0;  // the first 4 bytes, so the data is really looked at

    void add(const std::string &mime, const TagLib::ByteVector &data) {
        if (count == 0) {
            mimeType = mime;
            for (unsigned i = 0; i < 4 && i < data.size(); ++i)
                leading = (leading << 8) | static_cast<unsigned char>(data[i]);
        }
        ++count;
        bytes += data.size();
    }
};

void readID3v2(TagLib::ID3v2::Tag *id3, Pictures &pictures, std::string &disc) {
    const TagLib::ID3v2::FrameListMap &frames = id3->frameListMap();
    auto apic = frames.find("APIC");
    if (apic != frames.end()) {
        for (TagLib::ID3v2::Frame *frame : apic->second) {
            auto *picture = dynamic_cast<TagLib::ID3v2::AttachedPictureFrame *>(frame);
            if (picture) pictures.add(picture->mimeType().to8Bit(), picture->picture());
        }
    }
    auto tpos = frames.find("TPOS");
    if (tpos != frames.end() && !tpos->second.isEmpty())
        disc = oneLine(tpos->second.front()->toString());
}

void readXiph(TagLib::Ogg::XiphComment *xiph, Pictures &pictures, std::string &disc) {
    // pictureList() holds the METADATA_BLOCK_PICTURE comments, decoded (base64, then the
    // FLAC picture structure) when the comment was parsed.
    for (TagLib::FLAC::Picture *picture : xiph->pictureList())
        pictures.add(picture->mimeType().to8Bit(), picture->data());
    const TagLib::Ogg::FieldListMap &fields = xiph->fieldListMap();
    auto number = fields.find("DISCNUMBER");
    if (number != fields.end() && !number->second.isEmpty()) {
        disc = oneLine(number->second.front());
        auto total = fields.find("DISCTOTAL");
        if (total != fields.end() && !total->second.isEmpty()) disc += "/" + oneLine(total->second.front());
    }
}

void readAPE(TagLib::APE::Tag *ape, Pictures &pictures, std::string &disc) {
    const TagLib::APE::ItemListMap &items = ape->itemListMap();
    auto cover = items.find("COVER ART (FRONT)");
    if (cover != items.end()) {
        // A binary item: the file name, a NUL, then the image.
        const TagLib::ByteVector value = cover->second.binaryData();
        const int nul = value.find('\0');
        if (nul >= 0) pictures.add("", value.mid(static_cast<unsigned>(nul) + 1));
    }
    auto number = items.find("DISC");
    if (number != items.end()) disc = oneLine(number->second.toString());
}

Pictures readPictures(TagLib::File *file, std::string &disc) {
    Pictures pictures;
    if (auto *mpeg = dynamic_cast<TagLib::MPEG::File *>(file)) {
        if (TagLib::ID3v2::Tag *id3 = mpeg->ID3v2Tag(false)) readID3v2(id3, pictures, disc);
    } else if (auto *flac = dynamic_cast<TagLib::FLAC::File *>(file)) {
        for (TagLib::FLAC::Picture *picture : flac->pictureList())
            pictures.add(picture->mimeType().to8Bit(), picture->data());
        if (TagLib::Ogg::XiphComment *xiph = flac->xiphComment(false)) readXiph(xiph, pictures, disc);
    } else if (auto *vorbis = dynamic_cast<TagLib::Ogg::Vorbis::File *>(file)) {
        if (TagLib::Ogg::XiphComment *xiph = vorbis->tag()) readXiph(xiph, pictures, disc);
    } else if (auto *opus = dynamic_cast<TagLib::Ogg::Opus::File *>(file)) {
        if (TagLib::Ogg::XiphComment *xiph = opus->tag()) readXiph(xiph, pictures, disc);
    } else if (auto *wav = dynamic_cast<TagLib::RIFF::WAV::File *>(file)) {
        if (wav->hasID3v2Tag()) readID3v2(wav->ID3v2Tag(), pictures, disc);
    } else if (auto *aiff = dynamic_cast<TagLib::RIFF::AIFF::File *>(file)) {
        if (aiff->hasID3v2Tag()) readID3v2(aiff->tag(), pictures, disc);
    } else if (auto *wavpack = dynamic_cast<TagLib::WavPack::File *>(file)) {
        if (TagLib::APE::Tag *ape = wavpack->APETag(false)) readAPE(ape, pictures, disc);
    } else if (auto *mpc = dynamic_cast<TagLib::MPC::File *>(file)) {
        if (TagLib::APE::Tag *ape = mpc->APETag(false)) readAPE(ape, pictures, disc);
    } else if (auto *tta = dynamic_cast<TagLib::TrueAudio::File *>(file)) {
        if (TagLib::ID3v2::Tag *id3 = tta->ID3v2Tag(false)) readID3v2(id3, pictures, disc);
    } else if (auto *asf = dynamic_cast<TagLib::ASF::File *>(file)) {
        if (TagLib::ASF::Tag *tag = asf->tag()) {
            const TagLib::ASF::AttributeListMap &attributes = tag->attributeListMap();
            auto picture = attributes.find("WM/Picture");
            if (picture != attributes.end()) {
                for (const TagLib::ASF::Attribute &attribute : picture->second) {
                    const TagLib::ASF::Picture p = attribute.toPicture();
                    if (p.isValid()) pictures.add(p.mimeType().to8Bit(), p.picture());
                }
            }
            auto part = attributes.find("WM/PartOfSet");
            if (part != attributes.end() && !part->second.isEmpty()) disc = oneLine(part->second.front().toString());
        }
#ifdef TAGLIB_READ_MATROSKA
    } else if (auto *mkv = dynamic_cast<TagLib::Matroska::File *>(file)) {
        // Image attachments come back as PICTURE complex properties (TagLib 2.2's API); the
        // chapters are walked as mdkit reports them too.
        for (const TagLib::VariantMap &picture : mkv->complexProperties("PICTURE"))
            pictures.add(picture.value("mimeType").toString().to8Bit(), picture.value("data").toByteVector());
        if (TagLib::Matroska::Chapters *chapters = mkv->chapters()) {
            unsigned count = 0;
            for (const auto &edition : chapters->chapterEditionList()) count += edition.chapterList().size();
            disc = "chapters=" + std::to_string(count);
        }
#endif
    } else if (auto *mp4 = dynamic_cast<TagLib::MP4::File *>(file)) {
        if (TagLib::MP4::Tag *tag = mp4->tag()) {
            if (tag->contains("covr")) {
                const TagLib::MP4::CoverArtList covers = tag->item("covr").toCoverArtList();
                for (const TagLib::MP4::CoverArt &cover : covers) {
                    const char *mime = "application/octet-stream";
                    switch (cover.format()) {
                    case TagLib::MP4::CoverArt::JPEG: mime = "image/jpeg"; break;
                    case TagLib::MP4::CoverArt::PNG: mime = "image/png"; break;
                    case TagLib::MP4::CoverArt::GIF: mime = "image/gif"; break;
                    case TagLib::MP4::CoverArt::BMP: mime = "image/bmp"; break;
                    default: break;
                    }
                    pictures.add(mime, cover.data());
                }
            }
            if (tag->contains("disk")) {
                const TagLib::MP4::Item::IntPair pair = tag->item("disk").toIntPair();
                disc = std::to_string(pair.first) + "/" + std::to_string(pair.second);
            }
        }
    }
    return pictures;
}

}  // namespace

int main(int argc, char **argv) {
    static char buffer[1 << 16];
    std::setvbuf(stdout, buffer, _IOFBF, sizeof buffer);
    int status = 0;
    for (int i = 1; i < argc; ++i) {
        const char *path = argv[i];
        TagLib::FileRef ref(path, true, TagLib::AudioProperties::Average);
        if (ref.isNull() || !ref.tag()) {
            std::printf("%s\tERROR\tcannot open\n", path);
            status = 1;
            continue;
        }
        const TagLib::Tag *tag = ref.tag();
        const TagLib::AudioProperties *audio = ref.audioProperties();
        std::string disc;
        const Pictures pictures = readPictures(ref.file(), disc);
        std::printf("%s\ttitle=%s\tartist=%s\talbum=%s\tgenre=%s\tyear=%u\ttrack=%u\tdisc=%s"
                    "\tcomment=%s\tduration_ms=%d\tbitrate=%d\tsample_rate=%d"
                    "\tpictures=%u\tpicture_mime=%s\tpicture_bytes=%lu\tpicture_head=%08x\n",
                    path,
                    oneLine(tag->title()).c_str(), oneLine(tag->artist()).c_str(),
                    oneLine(tag->album()).c_str(), oneLine(tag->genre()).c_str(),
                    tag->year(), tag->track(), disc.c_str(), oneLine(tag->comment()).c_str(),
                    audio ? audio->lengthInMilliseconds() : -1, audio ? audio->bitrate() : -1,
                    audio ? audio->sampleRate() : -1,
                    pictures.count, pictures.mimeType.c_str(), pictures.bytes, pictures.leading);
    }
    std::fflush(stdout);
    return status;
}
