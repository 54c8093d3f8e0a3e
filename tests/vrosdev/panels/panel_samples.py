"""Panel sources shared by the panel tests."""

THEME_IMPORT = 'import { ExtTheme, ExtFocusRegion } from "@vros/theme.slint";\n'

# Accent on the top half, bg0 on the bottom half, a search field with the focus contract.
PROBE_PANEL = (
    THEME_IMPORT
    + """
export component Probe {
    preferred-width: 160px;
    preferred-height: 120px;
    in property <int> count;
    in property <float> level;
    in property <string> label;
    in property <[string]> names;
    in property <[{c0: string, c1: int, c2: bool, c3: float}]> sounds;
    in property <[image]> icons;
    out property <string> seen: label + "|" + count + "|" + names.length + "|"
        + (sounds.length > 0 ? sounds[0].c0 + "," + sounds[0].c1 + ","
           + (sounds[0].c2 ? "yes" : "no") + "," + sounds[0].c3 : "-");
    out property <int> icon-width: icons.length > 0 ? icons[0].width : -1;
    callback play(int, string);
    callback set-level(float, bool);
    callback field-focus(bool);
    in property <int> field-blur;
    out property <int> blur-count;
    changed field-blur => { search.clear-focus(); other.clear-focus(); root.blur-count += 1; }
    public function focus-search() { search.focus(); }
    public function focus-other() { other.focus(); }
    Rectangle { x: 0; y: 0; width: 160px; height: 60px; background: ExtTheme.c.accent; }
    Rectangle { x: 0; y: 60px; width: 160px; height: 60px; background: ExtTheme.c.bg0; }
    search := TextInput {
        x: 100px; y: 0; width: 60px; height: 20px;
        changed has-focus => { root.field-focus(self.has-focus); }
        ExtFocusRegion { width: parent.width; height: parent.height; focused: search.has-focus; }
    }
    other := TextInput {
        x: 100px; y: 30px; width: 60px; height: 20px;
        changed has-focus => { root.field-focus(self.has-focus); }
    }
    if icons.length > 0: Image {
        x: 0; y: 100px; width: 20px; height: 20px; source: icons[0]; image-rendering: pixelated;
    }
}
"""
)
