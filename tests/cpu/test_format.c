/* test_format.c — text as people read it (core/format.c): control
 * characters made visible so that a cell or a metadata line stays one line.
 *
 *   ./test_format [TEST_NAME]
 */
#include "core/format.h"
#include "kbtest.h"

#include <string.h>

KB_TEST(visible_text_escapes_every_control_character_and_keeps_the_rest) {
    char buf[64];
    kb_format_visible("a\rb\tc\nd\x01\x7f"
                      "e,\"f\\",
                      buf, sizeof buf);
    KB_EXPECT(strcmp(buf, "a\\rb\\tc\\nd\\x01\\x7fe,\"f\\") == 0);
}

KB_TEST(visible_text_is_cut_to_the_buffer_never_inside_an_escape) {
    char buf[6];
    kb_format_visible("abc\rdef", buf, sizeof buf); /* "abc\r" is 5 bytes: room for 5 */
    KB_EXPECT(strcmp(buf, "abc\\r") == 0);
    kb_format_visible("abcd\rdef", buf, sizeof buf); /* the escape would not fit whole */
    KB_EXPECT(strcmp(buf, "abcd") == 0);
}
