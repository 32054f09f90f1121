// Table Companion: the minute disc. Blue's minutes on the outer ring, shown in the lid's blue
// window (-x); red's on the inner ring, shown in the red window (+x). Position b (blue has b
// minutes, red 2 * minutes - b) is where the servo turns the disc to the angle
// (b - minutes) * degrees_per_minute, exactly as companion.platform.calibration computes it, so
// the number under each window is the player's allowance.
//
// part = "disc": the disc with the numbers sunk into its top (paint-fill them blue and red);
// part = "blue_numbers" / "red_numbers": inlays for a multi-material printer.
// Printing notes: enclosures/README.md.
include <params.scad>

part = "disc";

positions = 2 * minutes + 1;
font = "DejaVu Sans:style=Bold";

function servo_angle(b) = (b - minutes) * degrees_per_minute;
// where a number sits on the disc (disc frame, degrees counter-clockwise from +x)
function blue_angle(b) = 180 - disc_direction * servo_angle(b);
function red_angle(b) = -disc_direction * servo_angle(b);

module blue_numbers_2d() {
    for (b = [0 : positions - 1])
        // read by the blue player from the -x end: the digits' top towards +x
        rotate([0, 0, blue_angle(b)]) translate([blue_ring, 0, 0]) rotate([0, 0, -90 - 180])
            text(str(b), size = number_size, font = font, halign = "center", valign = "center");
}

module red_numbers_2d() {
    for (b = [0 : positions - 1])
        // read by the red player from the +x end: the digits' top towards -x
        rotate([0, 0, red_angle(b)]) translate([red_ring, 0, 0]) rotate([0, 0, 90])
            text(str(2 * minutes - b), size = number_size, font = font, halign = "center",
                 valign = "center");
}

module numbers(which) {
    translate([0, 0, disc_thickness - number_depth])
        linear_extrude(number_depth + 0.01)
            if (which == "blue") blue_numbers_2d(); else red_numbers_2d();
}

module disc() {
    difference() {
        cylinder(r = disc_radius, h = disc_thickness);
        numbers("blue");
        numbers("red");
        // the servo horn's pocket underneath, its screw through the centre
        translate([0, 0, -0.01]) cylinder(d = servo(servo_model)[9] + 0.4, h = horn_pocket);
        translate([0, 0, -1]) cylinder(d = 2.4, h = disc_thickness + 2);
        // an index notch on the rim: towards the red end (+x) at the start position (5 / 5)
        translate([disc_radius, 0, -1]) cylinder(r = 4, h = disc_thickness + 2);
    }
}

// --- fit checks --------------------------------------------------------------------------------
pitch_blue = 2 * PI * blue_ring * degrees_per_minute / 360;
pitch_red = 2 * PI * red_ring * degrees_per_minute / 360;
assert(positions * degrees_per_minute <= 360 + degrees_per_minute,
       "the positions go round more than once");
assert(min(pitch_blue, pitch_red) >= window[1], "the numbers are closer than a window is wide: a window would show two");
assert(blue_ring + window[0] / 2 <= disc_radius - 1, "the blue window runs off the disc");
assert(red_ring - window[0] / 2 >= servo(servo_model)[9] / 2 + 1, "the red numbers sit over the horn");
assert(blue_ring - window[0] / 2 >= red_ring + window[0] / 2, "the two rings overlap");
assert(disc_centre[1] + disc_radius <= inner_depth / 2, "the disc does not fit in the box");

for (b = [0 : positions - 1])
    echo("position", b, blue = b, red = 2 * minutes - b, servo_angle = servo_angle(b),
         blue_angle = blue_angle(b), red_angle = red_angle(b));
echo("disc", radius = disc_radius, thickness = disc_thickness, blue_ring = blue_ring,
     red_ring = red_ring, pitch_blue = pitch_blue, pitch_red = pitch_red);

if (part == "disc") disc();
else if (part == "blue_numbers") numbers("blue");
else if (part == "red_numbers") numbers("red");
