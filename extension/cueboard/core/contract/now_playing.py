"""The now-playing toast's contract (a runtime panel, defined with anchor hmd)."""

from .wire import PanelContract, Prop, Wire

NOW_PLAYING = PanelContract(
    name="now-playing",
    source="panels/now-playing.slint",
    purpose="A runtime toast (define, anchor hmd) naming the sound just triggered.",
    props=(
        Prop(
            "sound-name",
            Wire.STR,
            "The sound's display name on one line, shortened in the middle so that its end stays; "
            "or, with the overlay closed, where a command's paging "
            "or folder change landed (the overlay's header).",
        ),
        Prop(
            "channels-text",
            Wire.STR,
            "Localised targets and gains; or which place of the folder strip it landed on.",
        ),
        Prop(
            "sound-icon", Wire.ASSETS, "The sound's icon key (one), or the blank asset.", max_rows=1
        ),
        Prop("has-icon", Wire.BOOL, "sound-icon is a real icon."),
        Prop("showing", Wire.BOOL, "Fades the toast in (true) or out (false)."),
    ),
)
