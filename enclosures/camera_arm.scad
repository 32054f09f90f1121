// Table Companion: the camera arm. A foot beside the board, a vertical rod, an elbow, a
// horizontal rod and a holder that points a Camera Module 3 straight down at the centre of the
// Iago board. The rods are bought (8 mm aluminium or dowel, cut to the lengths echoed as
// "camera_arm"); the three printed parts are laid out side by side with part = "all", or one at a
// time with part = "foot" / "elbow" / "holder". Printing notes: enclosures/README.md.
include <params.scad>

part = "all";

fov = camera_fov(camera_model);
// the lens is high enough for the camera's narrower (vertical) field of view to take in the
// board and board_margin around it
lens_above_board = (board_size / 2 + board_margin) / tan(fov[1] / 2);
lens_z = board_thickness + lens_above_board;        // above the table
reach = foot_gap + board_size / 2;                  // rod axis to the board's centre

foot_plate = [90, 70, 6];
socket = [rod + 0.4, rod + 10, 30];                 // bore, outside, height
elbow_size = rod + 12;
holder_socket = 25;                                 // how far the horizontal rod enters the holder
plate = [34, 34, 3];
setscrew = 2.8;                                     // M3 set screw, tapped into the plastic

camera_depth = 11.5;                                // the module's board to the lens front

// the assembled arm (x: from the vertical rod's axis towards the board, z: up from the table).
// The horizontal rod starts flush with the elbow's back face and ends 1 mm short of the bottom
// of the holder's socket; the lens is under the holder plate's centre.
axis_z = lens_z + camera_depth + socket[1] / 2;      // the horizontal rod's axis
elbow_bottom_z = axis_z - 20 - elbow_size / 2;
vertical_rod = (elbow_bottom_z + 20 + elbow_size / 2 - 4) - foot_plate[2];
horizontal_rod = reach - plate[0] / 2 - 1 + elbow_size / 2;
// where the lens ends up, from the parts' own dimensions
rod_end_x = -elbow_size / 2 + horizontal_rod;
lens_x = rod_end_x + 1 + plate[0] / 2;

module foot() {
    difference() {
        union() {
            translate([-foot_plate[0] / 2, -foot_plate[1] / 2, 0]) cube(foot_plate);
            cylinder(d = socket[1], h = socket[2] + foot_plate[2]);
        }
        translate([0, 0, foot_plate[2]]) cylinder(d = socket[0], h = socket[2] + 1);
        translate([0, 0, foot_plate[2] + socket[2] / 2]) rotate([0, 90, 0])
            cylinder(d = setscrew, h = socket[1]);
    }
}

module elbow() {
    // printed standing: the vertical bore from below, the horizontal bore through
    difference() {
        translate([-elbow_size / 2, -elbow_size / 2, 0]) cube([elbow_size, elbow_size, elbow_size + 20]);
        translate([0, 0, -1]) cylinder(d = socket[0], h = 20 + elbow_size / 2 - 4 + 1);
        translate([0, 0, 20 + elbow_size / 2]) rotate([0, 90, 0])
            cylinder(d = socket[0], h = elbow_size + 2, center = true);
        for (z = [10, 20 + elbow_size / 2]) translate([0, 0, z]) rotate([90, 0, 0])
            cylinder(d = setscrew, h = elbow_size);
    }
}

module holder() {
    // printed with the plate on the bed; the Camera Module screws to its underside, lens down
    difference() {
        union() {
            translate([-plate[0] / 2, -plate[1] / 2, 0]) cube(plate);
            translate([-plate[0] / 2 - holder_socket, -socket[1] / 2, 0])
                cube([holder_socket + 1, socket[1], socket[1]]);
        }
        translate([-plate[0] / 2 - holder_socket - 1, 0, socket[1] / 2]) rotate([0, 90, 0])
            cylinder(d = socket[0], h = holder_socket);
        translate([-plate[0] / 2 - holder_socket / 2, 0, socket[1] - 3]) cylinder(d = setscrew, h = 5);
        // the lens at the plate's centre; the module's M2 holes around it
        translate([0, 0, -1]) cylinder(d = 12, h = plate[2] + 2);
        for (sx = [-1, 1], sy = [0, 1])
            translate([sx * camera_holes[0] / 2,
                       camera_lens_from_top - 2 - sy * camera_holes[1], -1])
                cylinder(d = 2.2, h = plate[2] + 2);
    }
}

assert(abs(lens_x - reach) < 0.01, "the lens is not over the board's centre");
assert(elbow_bottom_z > foot_plate[2] + socket[2], "the elbow sits lower than the foot's socket");

echo("camera_arm", lens_above_board = lens_above_board, lens_z = lens_z, reach = reach, lens_x = lens_x,
     vertical_rod = vertical_rod, horizontal_rod = horizontal_rod, fov = fov);

if (part == "foot") foot();
else if (part == "elbow") elbow();
else if (part == "holder") holder();
else {
    foot();
    translate([foot_plate[0] / 2 + elbow_size, 0, 0]) elbow();
    translate([foot_plate[0] / 2 + 2 * elbow_size + holder_socket + plate[0] / 2 + 10, 0, 0]) holder();
}
