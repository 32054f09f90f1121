// Table Companion: the box (part = "base") and its lid (part = "lid").
// The lid carries the two big player buttons (blue at -x, red at +x), the challenge button, the
// OLED window(s) and the two windows over the minute disc. The base holds the Raspberry Pi on
// standoffs, the servo mount (servo_mount.scad) under the disc, and cable openings.
// Printing notes: enclosures/README.md.
include <params.scad>

part = "lid";  // "base", "lid" or "both" (for a look, not for printing)

module rounded_box(size, r) {
    hull() for (x = [r, size[0] - r], y = [r, size[1] - r])
        translate([x, y, 0]) cylinder(r = r, h = size[2]);
}

// the Raspberry Pi (pi_model in params.scad): Pi 4/5 M2.5 holes 58 x 49 apart on an 85 x 56
// board, Zero 2 W 58 x 23 on 65 x 30; the long edge with the power (and the Zero's USB) ports
// faces the front wall's slot
pi = pi_dims(pi_model);
pi_holes = [pi[2], pi[3]];
pi_board = [pi[0], pi[1]];
pi_origin = [-pi_board[0] / 2, -box_depth / 2 + wall + 4];  // front-left corner of the board

module base() {
    difference() {
        translate([-box_length / 2, -box_depth / 2, 0])
            rounded_box([box_length, box_depth, box_height], corner_radius);
        translate([-inner_length / 2, -inner_depth / 2, wall])
            rounded_box([inner_length, inner_depth, box_height], max(corner_radius - wall, 1));
        // power and camera ribbon slot in the front wall, behind the Pi's ports
        translate([pi_origin[0] + 5, -box_depth / 2 - 1, wall + 6]) cube([50, wall + 2, 16]);
        // servo supply cable in the back wall
        translate([box_length / 2 - 30, box_depth / 2 + 1, wall + 10]) rotate([90, 0, 0])
            cylinder(d = 6, h = wall + 2);
    }
    // Pi standoffs (M2.5 heat-set inserts or self-tapping screws)
    for (x = [3.5, 3.5 + pi_holes[0]], y = [3.5, 3.5 + pi_holes[1]])
        translate([pi_origin[0] + x, pi_origin[1] + y, wall - 0.01]) difference() {
            cylinder(d = 6, h = 5);
            cylinder(d = 2.2, h = 6);
        }
}

module oled_cutout(x, flip) {
    o = oled_board;
    translate([x, oled_centre_y, 0]) rotate([0, 0, flip ? 180 : 0]) {
        // the visible area, through the lid
        translate([-o[5] / 2, -o[6] / 2 + o[7], -1]) cube([o[5], o[6], wall + 2]);
        // screw holes of the module (M2)
        for (sx = [-1, 1], sy = [-1, 1])
            translate([sx * o[2] / 2, sy * o[3] / 2, -1]) cylinder(d = o[4], h = wall + 2);
    }
}

module lid() {
    lip = 3;
    difference() {
        union() {
            translate([-box_length / 2, -box_depth / 2, 0])
                rounded_box([box_length, box_depth, wall], corner_radius);
            // the lip that locates the lid inside the walls
            difference() {
                translate([-inner_length / 2 + lid_gap, -inner_depth / 2 + lid_gap, -lip])
                    rounded_box([inner_length - 2 * lid_gap, inner_depth - 2 * lid_gap, lip],
                                max(corner_radius - wall, 1));
                translate([-inner_length / 2 + lid_gap + 1.6, -inner_depth / 2 + lid_gap + 1.6, -lip - 1])
                    rounded_box([inner_length - 2 * lid_gap - 3.2, inner_depth - 2 * lid_gap - 3.2, lip + 2],
                                max(corner_radius - wall - 1.6, 1));
            }
        }
        for (x = [blue_button_x, red_button_x])
            translate([x, 0, -lip - 1]) cylinder(d = button_hole, h = wall + lip + 2);
        translate([challenge_x, challenge_xy[1], -1]) cylinder(d = challenge_hole, h = wall + 2);
        for (i = [0 : len(oled_xs) - 1]) oled_cutout(oled_xs[i], i == 1);
        // the two windows over the disc's numbers
        for (w = [blue_window, red_window])
            translate([w[0] - window[0] / 2, w[1] - window[1] / 2, -1]) cube([window[0], window[1], wall + 2]);
    }
}

// --- fit checks: rendering fails if the parts do not fit -------------------------------------
o = oled_board;
assert(disc_centre[1] + disc_radius <= inner_depth / 2, "the disc is deeper than the box");
assert(disc_centre[1] - disc_radius >= oled_centre_y + o[1] / 2 + 1, "the disc hits the OLED");
assert(blue_button_x + button_hole / 2 + margin <= blue_window[0] - window[0] / 2,
       "the blue button's hole runs into the blue window");
assert(red_button_x - button_hole / 2 - margin >= red_window[0] + window[0] / 2,
       "the red button's hole runs into the red window");
assert(blue_button_x - button_bezel / 2 >= -box_length / 2, "the blue button overhangs the box");
assert(button_bezel <= box_depth, "the buttons are wider than the box");
assert(challenge_x + challenge_bezel / 2 <= red_button_x - button_bezel / 2,
       "the challenge button hits the red button");
assert(challenge_x - challenge_bezel / 2 >= oled_xs[len(oled_xs) - 1] + o[0] / 2 + 1,
       "the challenge button hits the OLED: make the box longer (box_length)");
assert(oled_xs[0] - o[0] / 2 >= blue_button_x + button_bezel / 2, "the OLED hits the blue button");
assert(challenge_xy[1] - challenge_bezel / 2 >= -box_depth / 2, "the challenge button overhangs");
assert(disc_bottom > wall + 10, "the box is too shallow for the servo under the disc");

assert(pi_model == "pi4_5" || pi_model == "zero2w", "pi_model: pi4_5 or zero2w");

echo("box", outer = [box_length, box_depth, box_height], lid_underside = lid_underside);
echo("pi", holes = pi_holes, board = pi_board,
     standoff_xs = [pi_origin[0] + 3.5, pi_origin[0] + 3.5 + pi_holes[0]],
     standoff_ys = [pi_origin[1] + 3.5, pi_origin[1] + 3.5 + pi_holes[1]]);
echo("disc_seat", centre = disc_centre, radius = disc_radius, top = disc_top);
echo("windows", blue = blue_window, red = red_window, size = window);

if (part == "base") base();
else if (part == "lid") lid();
else { base(); translate([0, 0, box_height]) lid(); }
